import { createOpenAI } from '@ai-sdk/openai';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { applyEvents } from '../../message/apply-events.js';
import { HistoryStore } from '../../store/history-store.js';
import { startLoopbackServer } from '../../testing/loopback-server.js';
import { bytesPerTokenCounter } from '../../tokens/bytes-per-token-counter.js';
import { fileText, scriptedReply, userText } from '../langchain/_test-agent-script.js';
import { startOpenAiServer } from '../langchain/_test-provider-servers.js';
import { SlidingContextProcessor } from './sliding-context-processor.js';

const chunk = (delta: unknown, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

type MastraModel = ConstructorParameters<typeof Agent>[0]['model'];

let store: HistoryStore;
let server: Awaited<ReturnType<typeof startLoopbackServer>>;
beforeAll(async () => {
  store = await HistoryStore.open({ memory: true });
  // Every stream stalls after a first piece: the application aborts it there.
  server = await startLoopbackServer(() => ({ status: 200, sse: chunk({ role: 'assistant', content: 'The first half' }), hold: true }));
});
afterAll(async () => {
  await server.close();
  await store.close();
});

const tools = {
  get_weather: createTool({ id: 'get_weather', description: 'The weather in a city.', inputSchema: z.object({ city: z.string() }), execute: ({ city }) => Promise.resolve(`Sunny and 21 degrees in ${city}.`) }),
  read_file: createTool({ id: 'read_file', description: 'Reads a file.', inputSchema: z.object({ path: z.string() }), execute: ({ path }) => Promise.resolve(fileText(path)) }),
};

/** An agent on `url` with the processor among its input and output processors, as the README shows it. */
function agentWith(processor: SlidingContextProcessor, url: string) {
  // Mastra declares the AI SDK's model type from its own copy of `@ai-sdk/provider`.
  const model = createOpenAI({ baseURL: url, apiKey: 'sk-loopback' }).chat('gpt-4o') as unknown as MastraModel;
  return new Agent({ id: 'desk', name: 'desk', instructions: 'Be brief.', model, tools, inputProcessors: [processor], outputProcessors: [processor] });
}

async function visibleOf(agentId: string | undefined) {
  return agentId === undefined ? [] : applyEvents((await store.history(agentId)).map((row) => row.message));
}

const agentNamed = async (name: string) => (await store.listAgents()).find((entry) => entry.name === name)?.agentId;

describe('SlidingContextProcessor when a Mastra stream is aborted', () => {
  it('stores what the stream carried, marked interrupted', { timeout: 30_000 }, async () => {
    const processor = new SlidingContextProcessor({ store, conversationId: 'aborted-run' });
    const agent = agentWith(processor, `${server.url}/v1`);
    const abort = new AbortController();
    const result = await agent.stream('stall, please', { abortSignal: abort.signal });
    const texts: string[] = [];
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') {
        texts.push(part.payload.text);
        abort.abort();
      }
    }
    expect(texts).toEqual(['The first half']);
    // Closing waits for the work queued, the aborted step's answer among it.
    await processor.close();
    const stored = await visibleOf(await agentNamed('aborted-run'));
    expect(stored.map((message) => message.role)).toEqual(['system', 'user', 'assistant']);
    expect(stored[1]).toMatchObject({ content: [{ type: 'text', text: 'stall, please' }] });
    expect(stored[2]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'The first half' }], providerOptions: { 'sliding-context': { interrupted: true } } });
  });
});

describe('SlidingContextProcessor without a thread or a conversation id', () => {
  it('continues one conversation when the application sends its history back in Mastra\'s shape', { timeout: 60_000 }, async () => {
    const scripted = await startOpenAiServer({ reply: scriptedReply, counter: bytesPerTokenCounter, model: 'gpt-4o', contextLimitTokens: 1_000_000 });
    const processor = new SlidingContextProcessor({ store, budgetTokens: 100_000 });
    const agent = agentWith(processor, scripted.url);
    const before = new Set((await store.listAgents()).map((entry) => entry.agentId));
    const history: unknown[] = [];
    try {
      for (let turn = 0; turn < 3; turn++) {
        history.push({ role: 'user', content: userText(turn) });
        const result = await agent.generate(history as Parameters<Agent['generate']>[0], { maxSteps: 5 });
        history.push(...result.response.messages ?? []);
      }
    } finally {
      await processor.close();
      await scripted.close();
    }
    const made = (await store.listAgents()).filter((entry) => !before.has(entry.agentId));
    expect(made.map((entry) => entry.parentId)).toEqual([null]);
    const stored = await visibleOf(made[0]?.agentId);
    const questions = stored.filter((message) => message.role === 'user').map((message) => (Array.isArray(message.content) ? message.content.map((part) => ('text' in part ? part.text : '')).join('') : message.content));
    expect(questions).toEqual([0, 1, 2].map(userText));
    // The system prompt; per turn: the question, two parallel calls and their results, the read and its result, the answer.
    expect(stored).toHaveLength(1 + 3 * 6);
  });
});
