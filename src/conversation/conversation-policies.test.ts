import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { digestSummarizer } from '../condense/digest-summarizer.js';
import { isSummaryMessage } from '../condense/stored-summary.js';
import { HistoryStore } from '../store/history-store.js';
import { fixTurn } from '../testing/message-builders.js';
import { startLoopbackServer } from '../testing/loopback-server.js';
import { loadTokenCounter } from '../tokens/load-token-counter.js';
import type { WindowPolicy } from '../window/window-policy.js';
import type { ConversationEvent } from './conversation-events.js';
import { type OpenConversationOptions, openConversation } from './conversation.js';

const counter = await loadTokenCounter();
const target = { provider: 'openai', model: 'gpt-4o' };

const turn = (i: number, outputLines = 20) => fixTurn(i, { outputLines });

// One embedded store for every test: each conversation is an agent of its own.
const store = await HistoryStore.open({ memory: true });
afterAll(() => store.close());

async function run(options: Partial<OpenConversationOptions>, turns = 12) {
  const conversation = await openConversation({ store, ...target, counter, budgetTokens: 2000, system: 'Be terse.', ...options });
  const events: ConversationEvent[] = [];
  conversation.on((event) => events.push(event));
  for (let i = 0; i < turns; i++) {
    await conversation.append(turn(i));
    await conversation.endTurn();
  }
  return { store, conversation, events };
}

describe('Conversation window policies', () => {
  it.each<WindowPolicy>([
    { name: 'fraction' },
    { name: 'sequence', retentionWindow: 4, messageThreshold: 16 },
  ])('%o chooses the window, within budget, and the same after a restart', async (policy) => {
    const { store, conversation } = await run({ policy });
    const { request, report } = await conversation.request();
    expect(report.policy).toBe(policy.name);
    expect(report.totalTokens).toBeLessThanOrEqual(2000);
    expect(report.evictedExchanges).toBeGreaterThan(0);
    if (policy.name === 'fraction') expect(report.exchanges[0]?.inWindow).toBe(true);
    if (policy.name === 'sequence') expect(report.messages.length).toBeLessThan(16 + 1);
    const reopened = await openConversation({ store, agentId: conversation.agentId, ...target, counter, policy });
    expect((await reopened.request()).request).toEqual(request);
    const history = await reopened.history();
    expect(history.filter((exchange) => exchange.inWindow).length).toBe(report.exchanges.filter((exchange) => exchange.inWindow).length);
  });

  it('sequence with a summarizer condenses the whole run outside the retention window', async () => {
    const { conversation, events } = await run({ policy: { name: 'sequence', retentionWindow: 4, messageThreshold: 16 }, condense: { summarizer: digestSummarizer(), thresholdPercent: 100 } }, 0);
    let condensed = 0;
    for (let i = 0; i < 12; i++) {
      await conversation.append(turn(i));
      const before = events.length;
      await conversation.endTurn();
      if (!events.slice(before).some((event) => event.type === 'summary-created')) continue;
      condensed++;
      // The last 4 messages are the latest exchange: everything before it went into the summary.
      const { report } = await conversation.request();
      expect(report.messages.filter(isSummaryMessage)).toHaveLength(1);
      expect(report.exchanges.filter((exchange) => exchange.inWindow)).toHaveLength(1);
    }
    expect(condensed).toBeGreaterThan(1);
  });

  it('clear-tool-outputs clears old outputs of a turn over budget on its own, names where they are stored, and keeps the history', async () => {
    const conversation = await openConversation({ store, ...target, counter, budgetTokens: 2000, policy: { name: 'clear-tool-outputs', keep: 1, minimumTokens: 0 } });
    const events: ConversationEvent[] = [];
    conversation.on((event) => events.push(event));
    await conversation.append([{ role: 'user', content: 'Read every module.' }]);
    for (let i = 0; i < 4; i++) await conversation.append(turn(i, 120).slice(1, 3));
    const { report, request } = await conversation.request();
    expect(report.clearedToolOutputs.map((output) => output.toolCallId)).toEqual(['call_0', 'call_1', 'call_2']);
    expect(report.overBudget).toBe(false);
    const stored = await store.history(conversation.agentId);
    for (const cleared of report.clearedToolOutputs) {
      const seq = Number(/^message (\d+)$/.exec(cleared.storedAs)?.[1]);
      expect(JSON.stringify(stored.find((entry) => entry.seq === seq)?.message)).toContain(`export const value${cleared.toolCallId.slice(5)}`);
    }
    expect(JSON.stringify(request)).toContain('[output cleared: ');
    expect(JSON.stringify(request)).toContain('call_0');
    expect(events).toContainEqual(expect.objectContaining({ type: 'tool-outputs-cleared', tokensAfter: report.totalTokens }));
    expect(stored).toHaveLength(9);
  });
});

const recorded = (name: string) => JSON.parse(readFileSync(new URL(`../providers/__fixtures__/errors/${name}.json`, import.meta.url), 'utf8')) as { status: number; body: unknown };
const completion = { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'gpt-4o', choices: [{ index: 0, message: { role: 'assistant', content: 'Done.' }, finish_reason: 'stop' }], usage: { prompt_tokens: 900, completion_tokens: 2, total_tokens: 902 } };

describe('BEHAVIOUR 17: Conversation.send, when the provider answers that the request is too long', () => {
  const answers: { status: number; body: unknown }[] = [];
  let serverTokens: number[] = [];
  const serverPromise = startLoopbackServer(({ body }) => {
    serverTokens.push(JSON.stringify(body).length);
    return answers.shift() ?? { status: 200, body: completion };
  });
  afterAll(async () => (await serverPromise).close());

  it('evicts more and retries, then succeeds (OpenAI)', async () => {
    const server = await serverPromise;
    const client = new OpenAI({ apiKey: 'test', baseURL: `${server.url}/v1`, maxRetries: 0 });
    const { conversation, events } = await run({ budgetTokens: 100_000 }, 20);
    answers.push(recorded('openai-context-length-exceeded'));
    serverTokens = [];
    const reply = await conversation.send((request) => client.chat.completions.create(request as OpenAI.ChatCompletionCreateParamsNonStreaming));
    expect(reply.choices[0]?.message.content).toBe('Done.');
    expect(serverTokens).toHaveLength(2);
    expect(serverTokens[1]).toBeLessThan(serverTokens[0] as number);
    const retried = events.find((event) => event.type === 'overflow-retried');
    expect(retried).toMatchObject({ attempt: 1, providerTokens: 131_845, limit: 128_000 });
    if (retried?.type === 'overflow-retried') expect(retried.tokensAfter).toBeLessThanOrEqual(Math.floor(retried.tokensBefore * 0.98 * 128_000 / 131_845));
  });

  it('gives up with CONTEXT_OVERFLOW, naming the tokens and the limit, after the retries (Anthropic)', async () => {
    const server = await serverPromise;
    const client = new Anthropic({ apiKey: 'test', baseURL: server.url, maxRetries: 0 });
    const { conversation, events, store } = await run({ ...target, budgetTokens: 100_000, provider: 'anthropic', model: 'claude-sonnet-4-5' }, 40);
    for (let i = 0; i < 4; i++) answers.push(recorded('anthropic-prompt-too-long'));
    serverTokens = [];
    const failure = conversation.send((request) => client.messages.create(request as Anthropic.MessageCreateParamsNonStreaming), { maxRetries: 2 });
    await expect(failure).rejects.toMatchObject({ code: 'CONTEXT_OVERFLOW', message: expect.stringMatching(/208310 as the provider counted them\) against a limit of 200000; gave up after 2 retries/) });
    expect(serverTokens).toHaveLength(3);
    expect(events.filter((event) => event.type === 'overflow-retried')).toHaveLength(2);
    expect(await store.history(conversation.agentId)).toHaveLength(160);
    answers.length = 0;
  });

  it('passes any other error through unchanged, after one call', async () => {
    const server = await serverPromise;
    const client = new OpenAI({ apiKey: 'test', baseURL: `${server.url}/v1`, maxRetries: 0 });
    const { conversation } = await run({}, 2);
    answers.push(recorded('openai-server-error'));
    serverTokens = [];
    await expect(conversation.send((request) => client.chat.completions.create(request as OpenAI.ChatCompletionCreateParamsNonStreaming))).rejects.toBeInstanceOf(OpenAI.InternalServerError);
    expect(serverTokens).toHaveLength(1);
  });
});

describe('a budget derived from the model', () => {
  it('is the window less the buffer and reserved output, and the condense threshold is a share of that window', async () => {
    const modelBudget = { contextWindowTokens: 20_000, reservedOutputTokens: 1_000 };
    const conversation = await openConversation({ store, ...target, counter, modelBudget, condense: { summarizer: digestSummarizer(), thresholdPercent: 50 } });
    const events: ConversationEvent[] = [];
    conversation.on((event) => events.push(event));
    expect((await conversation.request()).report.budgetTokens).toBe(17_000);
    for (let i = 0; events.every((event) => event.type !== 'summary-created') && i < 60; i++) {
      await conversation.append(turn(i));
      await conversation.endTurn();
    }
    const created = events.find((event) => event.type === 'summary-created');
    // 50% of the 20,000-token window, not of the 17,000-token budget (8,500).
    expect(created?.tokensBefore).toBeGreaterThanOrEqual(10_000);
    expect(created?.tokensBefore).toBeLessThan(11_000);
    const fork = await conversation.fork();
    expect((await fork.request()).report.budgetTokens).toBe(17_000);
  });
});

describe('a fork and the summary in force', () => {
  it('starts with its parent\'s summary, and what the parent condenses after the fork stays the parent\'s', async () => {
    const { conversation } = await run({ condense: { summarizer: digestSummarizer() } });
    const before = (await conversation.request()).request;
    expect(JSON.stringify(before)).toContain('Earlier in this conversation');
    const child = await conversation.fork();
    expect((await child.request()).request).toEqual(before);
    expect((await child.history()).filter((exchange) => exchange.summarized).length).toBeGreaterThan(0);
    for (let i = 12; i < 20; i++) {
      await conversation.append(turn(i));
      await conversation.endTurn();
    }
    const reopened = await openConversation({ store, agentId: child.agentId, ...target, counter });
    expect((await reopened.request()).request).toEqual(before);
  });
});
