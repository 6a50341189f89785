import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { openConversation } from '../conversation/conversation.js';
import type { ConversationEvent } from '../conversation/conversation-events.js';
import type { Message } from '../message/message.js';
import { HistoryStore } from '../store/history-store.js';
import { type ReceivedRequest, startLoopbackServer } from '../testing/loopback-server.js';
import { loadTokenCounter } from '../tokens/load-token-counter.js';
import { isSummaryMessage } from '../condense/stored-summary.js';
import { DEFAULT_CONDENSING_PROMPT, llmSummarizer } from './llm-summarizer.js';
import { completeFor } from './provider-table.js';

type Answer = { status: number; body: unknown; delayMs?: number };
const fixture = (path: string): Answer => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as Answer;
const summaryFixture = (name: string) => fixture(`./__fixtures__/summaries/${name}.json`);
const errorFixture = (name: string) => fixture(`./__fixtures__/errors/${name}.json`);

let answers: Answer[] = [];
const server = await startLoopbackServer(async () => {
  const answer = answers.shift() ?? { status: 500, body: { error: { message: 'no answer queued' } } };
  if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
  return answer;
});
// One embedded store for every test: each conversation is an agent of its own.
const store = await HistoryStore.open({ memory: true });
afterAll(async () => {
  await server.close();
  await store.close();
});
beforeEach(() => {
  answers = [];
  server.received.length = 0;
});

const counter = await loadTokenCounter();
const clients = {
  openai: { provider: 'openai', client: new OpenAI({ apiKey: 'test', baseURL: `${server.url}/v1`, maxRetries: 0 }) },
  anthropic: { provider: 'anthropic', client: new Anthropic({ apiKey: 'test', baseURL: server.url, maxRetries: 0 }) },
} as const;
const models = { openai: 'gpt-4o-mini', anthropic: 'claude-haiku-4-5' };

const turn = (i: number): Message[] => [
  { role: 'user', content: `Step ${i} of the task: fix the failing payments tests; look at src/${i}.ts.` },
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: `call_${i}`, toolName: 'read_file', input: { path: `src/${i}.ts` } }] },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: `call_${i}`, toolName: 'read_file', output: { type: 'text', value: `export const amount${i} = ${i} * 100;\n`.repeat(40) } }] },
  { role: 'assistant', content: `src/${i}.ts looks right.` },
];

/**
 * A conversation of eight turns, condensed by the LLM summarizer on the loopback server. The
 * summarizer's timeout is long enough for a loaded machine, except where a timeout is the point.
 */
async function conversationWith(
  provider: 'openai' | 'anthropic',
  extra: { customCondensingPrompt?: string; maxInputTokens?: number } = {},
  summarizer = llmSummarizer({ complete: completeFor(provider, clients[provider].client, models[provider]), provider, model: models[provider], ...extra }),
  timeoutMs = 10_000,
  focus?: string,
) {
  const conversation = await openConversation({
    store, provider: 'openai', model: 'gpt-4o', counter, budgetTokens: 100_000,
    condense: { summarizer, timeoutMs, maxPassesPerTurn: 10, focus },
  });
  const events: ConversationEvent[] = [];
  conversation.on((event) => events.push(event));
  for (let i = 0; i < 8; i++) await conversation.append(turn(i));
  return { store, conversation, events };
}

const requestText = (request: ReceivedRequest | undefined) => JSON.stringify(request?.body);

describe.each(['openai', 'anthropic'] as const)('the LLM summarizer through the %s SDK', (provider) => {
  it('summarizes with its own model and prompt, keeping the task and file paths in what it sends, and the summary is pinned', async () => {
    const { conversation, events, store } = await conversationWith(provider);
    answers.push(summaryFixture(`${provider}-summary`));
    const result = await conversation.compact();
    expect(result.fallback).toBeNull();
    expect(result.coveredExchanges).toBe(7);
    expect(result.summary).toContain('integer cents');
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
    const sent = server.received[0];
    expect(sent?.path).toBe(provider === 'openai' ? '/v1/chat/completions' : '/v1/messages');
    expect(sent?.body).toMatchObject({ model: models[provider] });
    expect(requestText(sent)).toContain('The user\'s original task');
    expect(requestText(sent)).toContain('fix the failing payments tests');
    expect(requestText(sent)).toContain('read_file({\\"path\\":\\"src/6.ts\\"})');
    expect(requestText(sent)).not.toContain('src/7.ts');
    const { report } = await conversation.request();
    expect(report.messages.filter(isSummaryMessage)).toHaveLength(1);
    expect(events).toContainEqual(expect.objectContaining({ type: 'summary-created', summarizer: 'llm', cost: { inputTokens: expect.any(Number), outputTokens: expect.any(Number) } }));
    expect(await store.history(conversation.agentId)).toHaveLength(32);
  });

  it('uses the custom condensing prompt instead of the default', async () => {
    const { conversation } = await conversationWith(provider, { customCondensingPrompt: 'Summarize for a reviewer, in three bullet points.' });
    answers.push(summaryFixture(`${provider}-summary`));
    await conversation.compact();
    expect(requestText(server.received[0])).toContain('Summarize for a reviewer, in three bullet points.');
    expect(requestText(server.received[0])).not.toContain(DEFAULT_CONDENSING_PROMPT.slice(0, 40));
  });

  it('asks for the focus given to compact (or set in the condense options), after the prompt, in each part and the merge', async () => {
    const { conversation } = await conversationWith(provider);
    answers.push(summaryFixture(`${provider}-summary`));
    expect((await conversation.compact({ focus: 'the rounding of amounts in src/3.ts' })).fallback).toBeNull();
    const sent = requestText(server.received[0]);
    expect(sent).toContain('The user\'s original task');
    expect(sent).toContain('The user asks this summary to focus on: the rounding of amounts in src/3.ts');
    expect(sent.indexOf('focus on:')).toBeGreaterThan(sent.indexOf('The user\'s original task'));

    const parts = await conversationWith(provider, { maxInputTokens: 900 }, undefined, 10_000, 'the retry policy');
    for (let i = 0; i < 20; i++) answers.push(summaryFixture(`${provider}-summary`));
    server.received.length = 0;
    expect((await parts.conversation.compact()).fallback).toBeNull();
    expect(server.received.length).toBeGreaterThan(2);
    for (const request of server.received) expect(requestText(request)).toContain('focus on: the retry policy');
    expect(requestText(server.received.at(-1))).toContain('Merge these partial summaries');
  });

  it('folds the previous summary into the next one', async () => {
    const { conversation } = await conversationWith(provider);
    answers.push(summaryFixture(`${provider}-summary`));
    await conversation.compact();
    await conversation.append(turn(8));
    answers.push(summaryFixture(`${provider}-summary`));
    expect((await conversation.compact()).fallback).toBeNull();
    expect(requestText(server.received[1])).toContain('Summary so far:');
    expect(requestText(server.received[1])).toContain('integer cents');
    expect(requestText(server.received[1])).toContain('src/7.ts');
  });

  it('summarizes input longer than its model takes in parts, then merges the parts', async () => {
    const { conversation } = await conversationWith(provider, { maxInputTokens: 900 });
    for (let i = 0; i < 20; i++) answers.push(summaryFixture(`${provider}-summary`));
    const result = await conversation.compact();
    expect(result.fallback).toBeNull();
    const calls = server.received.length;
    expect(calls).toBeGreaterThan(2);
    for (const request of server.received.slice(0, -1)) expect(requestText(request)).toMatch(/Part \d+ of \d+ of the conversation/);
    expect(requestText(server.received.at(-1))).toContain('Merge these partial summaries');
  });

  // The timeout case answers after 3 s against a 300 ms timeout.
  const failures: [string, () => Answer, string][] = [
    ['a 500 error', () => errorFixture('openai-server-error'), 'error'],
    ['a timeout', () => ({ ...summaryFixture(`${provider}-summary`), delayMs: 3_000 }), 'timeout'],
    ['a truncated summary', () => summaryFixture(provider === 'openai' ? 'openai-summary-length' : 'anthropic-summary-max-tokens'), 'truncated'],
    ['a summary the content filter stopped short', () => summaryFixture(provider === 'openai' ? 'openai-summary-content-filter' : 'anthropic-summary-refusal'), 'truncated'],
    ['a summary longer than its input', () => summaryFixture(`${provider}-summary-longer-than-input`), 'not-smaller'],
    ['a 400 "prompt is too long"', () => errorFixture(provider === 'openai' ? 'openai-context-length-exceeded' : 'anthropic-prompt-too-long'), 'error'],
  ];

  it.each(failures)('on %s: history intact, falls back to eviction, and says why', async (_, answer, reason) => {
    const { conversation, events, store } = await conversationWith(provider, {}, undefined, reason === 'timeout' ? 300 : 10_000);
    const before = (await conversation.request()).request;
    answers.push(answer());
    const result = await conversation.compact();
    expect(result).toMatchObject({ summary: null, coveredExchanges: 0, fallback: reason });
    expect(events).toContainEqual(expect.objectContaining({ type: 'summary-failed', summarizer: 'llm', reason }));
    expect(await store.history(conversation.agentId)).toHaveLength(32);
    expect(await store.ranges(conversation.agentId, { kind: 'summary' })).toHaveLength(0);
    // Nothing was replaced: the window is what it was, and it still evicts by budget alone.
    const after = await conversation.request();
    expect(after.request).toEqual(before);
    expect(after.report.messages.filter(isSummaryMessage)).toHaveLength(0);
    await conversation.setBudgetTokens(3_000);
    expect((await conversation.request()).report.totalTokens).toBeLessThanOrEqual(3_000);
  });
});

describe('the LLM summarizer given an official SDK client instead of complete', () => {
  it.each(['openai', 'anthropic'] as const)('%s: the client is asked with the summarizer\'s model, as before', async (provider) => {
    const { conversation } = await conversationWith(provider, {}, llmSummarizer({ client: clients[provider], model: models[provider] }));
    answers.push(summaryFixture(`${provider}-summary`));
    const result = await conversation.compact();
    expect(result.fallback).toBeNull();
    expect(result.summary).toContain('integer cents');
    expect(server.received[0]?.body).toMatchObject({ model: models[provider] });
  });

  it('google: generateContent is asked, and a summary cut off at its output cap is not used', async () => {
    const client = new GoogleGenAI({ apiKey: 'test', httpOptions: { baseUrl: server.url, retryOptions: { attempts: 1 } } });
    const summarizer = llmSummarizer({ client: { provider: 'google', client }, model: 'gemini-2.5-flash' });
    const { conversation } = await conversationWith('openai', {}, summarizer);
    answers.push(summaryFixture('google-summary'));
    const result = await conversation.compact();
    expect(result.fallback).toBeNull();
    expect(result.summary).toContain('integer cents');
    expect(server.received[0]?.path).toMatch(/\/models\/gemini-2\.5-flash:generateContent$/);
    await conversation.append(turn(8));
    answers.push(summaryFixture('google-summary-max-tokens'));
    expect((await conversation.compact()).fallback).toBe('truncated');
    answers.push(summaryFixture('google-summary-safety'));
    expect(await conversation.compact()).toMatchObject({ summary: null, fallback: 'truncated', fallbackDetail: expect.stringContaining('content filter') as unknown });
  });
});
