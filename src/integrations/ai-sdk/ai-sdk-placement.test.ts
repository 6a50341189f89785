import { createOpenAI } from '@ai-sdk/openai';
import { generateText, type ModelMessage, streamText, wrapLanguageModel } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIGEST_HEADING, digestSummarizer } from '../../condense/digest-summarizer.js';
import { applyEvents } from '../../message/apply-events.js';
import { HistoryStore } from '../../store/history-store.js';
import { startLoopbackServer } from '../../testing/loopback-server.js';
import { slidingContext } from './sliding-context-middleware.js';

const chunk = (delta: unknown, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

let store: HistoryStore;
let server: Awaited<ReturnType<typeof startLoopbackServer>>;
beforeAll(async () => {
  store = await HistoryStore.open({ memory: true });
  // Streams stall after a first piece when asked to; everything else is answered at once.
  server = await startLoopbackServer((request) => {
    const body = request.body as { stream?: boolean; messages: { content: unknown }[] };
    const last = JSON.stringify(body.messages.at(-1)?.content);
    if (body.stream === true) return { status: 200, sse: chunk({ role: 'assistant', content: 'The first half' }), hold: last.includes('stall') };
    return { status: 200, body: { id: 'c', object: 'chat.completion', created: 1, model: 'gpt-4o', choices: [{ index: 0, message: { role: 'assistant', content: `re: ${last}` }, finish_reason: 'stop' }], usage: { prompt_tokens: 20, completion_tokens: 3, total_tokens: 23 } } };
  });
});
afterAll(async () => {
  await server.close();
  await store.close();
});

const modelWith = (middleware: ReturnType<typeof slidingContext>) =>
  wrapLanguageModel({ model: createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test' }).chat('gpt-4o'), middleware });

async function visible(agentId: string) {
  return applyEvents((await store.history(agentId)).map((row) => row.message));
}

describe('the AI SDK middleware', () => {
  it('stores what an aborted stream carried, marked interrupted', { timeout: 30_000 }, async () => {
    const middleware = slidingContext({ store, conversationId: 'aborted' });
    const abort = new AbortController();
    const result = streamText({ model: modelWith(middleware), prompt: 'stall, please', abortSignal: abort.signal });
    for await (const delta of result.textStream) {
      expect(delta).toBe('The first half');
      abort.abort();
    }
    const agent = (await store.listAgents()).find((entry) => entry.name === 'aborted');
    let stored = await visible(agent?.agentId ?? '');
    for (let wait = 0; wait < 50 && stored.length < 2; wait++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      stored = await visible(agent?.agentId ?? '');
    }
    expect(stored).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'stall, please' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'The first half' }], providerOptions: { 'sliding-context': { interrupted: true } } },
    ]);
  });

  it('continues the conversation a request extends, and forks the one it diverges from', async () => {
    const model = modelWith(slidingContext({ store }));
    const first: ModelMessage[] = [{ role: 'user', content: 'plan a trip' }];
    const answer = await generateText({ model, messages: first });
    const second: ModelMessage[] = [...first, ...answer.responseMessages, { role: 'user', content: 'to Lisbon' }];
    await generateText({ model, messages: second });
    const before = (await store.listAgents()).filter((agent) => agent.title === 'plan a trip');
    expect(before).toHaveLength(1);
    // Regenerated from a fresh process: the same middleware state is not needed, the store decides.
    const edited: ModelMessage[] = [...first, ...answer.responseMessages, { role: 'user', content: 'to Porto' }];
    await generateText({ model: modelWith(slidingContext({ store })), messages: edited });
    const after = (await store.listAgents()).filter((agent) => agent.title === 'plan a trip');
    expect(after).toHaveLength(2);
    const fork = after.find((agent) => agent.parentId !== null);
    expect(fork?.parentId).toBe(before[0]?.agentId);
    expect((await visible(fork?.agentId ?? '')).map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect((await visible(before[0]?.agentId ?? '')).at(2)).toEqual({ role: 'user', content: [{ type: 'text', text: 'to Lisbon' }] });
  });

  it('moves a conversation id to the fork when a request under that id diverges', async () => {
    const model = modelWith(slidingContext({ store, conversationId: 'named' }));
    const first: ModelMessage[] = [{ role: 'user', content: 'name a colour' }];
    const answer = await generateText({ model, messages: first });
    await generateText({ model, messages: [...first, ...answer.responseMessages, { role: 'user', content: 'another' }] });
    const original = (await store.listAgents()).find((agent) => agent.name === 'named');
    await generateText({ model, messages: [...first, ...answer.responseMessages, { role: 'user', content: 'a darker one' }] });
    const named = (await store.listAgents()).find((agent) => agent.name === 'named');
    expect(named?.parentId).toBe(original?.agentId);
    expect((await visible(named?.agentId ?? '')).at(2)).toEqual({ role: 'user', content: [{ type: 'text', text: 'a darker one' }] });
  });

  it('pins a digest of what left the window after the system prompt, with `condense`', { timeout: 30_000 }, async () => {
    const model = modelWith(slidingContext({ store, conversationId: 'condensed', budgetTokens: 400, condense: { summarizer: digestSummarizer() } }));
    const messages: ModelMessage[] = [];
    for (let turn = 1; turn <= 8; turn++) {
      messages.push({ role: 'user', content: `step ${turn}: ${'tell me more about the harbour; '.repeat(6)}` });
      messages.push(...(await generateText({ model, instructions: 'Be brief.', messages })).responseMessages);
    }
    const last = server.received.at(-1)?.body as { messages: { role: string; content: unknown }[] };
    expect(last.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(last.messages[1]?.role).toBe('system');
    expect(String(last.messages[1]?.content)).toContain(DIGEST_HEADING);
    expect(last.messages[2]?.role).toBe('user');
    expect(JSON.stringify(last.messages.at(-1))).toContain('step 8');
    expect(last.messages.filter((message) => message.role === 'user').length).toBeLessThan(8);
  });

  it('refuses both `dataDir` and `store`, naming them', () => {
    expect(() => slidingContext({ store, dataDir: 'somewhere' })).toThrow('give either `dataDir` or `store`, not both');
  });
});
