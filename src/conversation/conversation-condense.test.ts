import { describe, expect, it } from 'vitest';
import { digestSummarizer } from '../condense/digest-summarizer.js';
import { isSummaryMessage } from '../condense/stored-summary.js';
import type { Summarizer, SummaryResult } from '../condense/summarizer.js';
import { HistoryStore } from '../store/history-store.js';
import { fixTurn } from '../testing/message-builders.js';
import { loadTokenCounter } from '../tokens/load-token-counter.js';
import type { ConversationEvent } from './conversation-events.js';
import { openConversation } from './conversation.js';

const counter = await loadTokenCounter();
const target = { provider: 'openai', model: 'gpt-4o' };

const turn = (i: number) => fixTurn(i, { padding: ` ${'Context. '.repeat(20)}` });

const answer = (text: string, finishReason: SummaryResult['finishReason'] = 'stop'): Summarizer => ({
  name: 'test',
  summarize: () => Promise.resolve({ text, finishReason, cost: { inputTokens: 10, outputTokens: 5 } }),
});

async function run(summarizer: Summarizer | undefined, turns = 12, extra: Record<string, unknown> = {}) {
  const store = await HistoryStore.open({ memory: true });
  const conversation = await openConversation({ store, ...target, counter, budgetTokens: 2000, system: 'Be terse.', ...(summarizer ? { condense: { summarizer, ...extra } } : {}) });
  const events: ConversationEvent[] = [];
  conversation.on((event) => events.push(event));
  for (let i = 0; i < turns; i++) {
    await conversation.append(turn(i));
    await conversation.endTurn();
  }
  return { store, conversation, events };
}

describe('Conversation condensing', () => {
  it('folds evicted exchanges into one pinned digest after the system prompt, within budget, and the same after a restart', async () => {
    const { store, conversation, events } = await run(digestSummarizer());
    const { report, request } = await conversation.request();
    expect(report.totalTokens).toBeLessThanOrEqual(2000);
    expect(report.messages.filter(isSummaryMessage)).toHaveLength(1);
    expect(report.messages[0]).toMatchObject({ role: 'system', providerOptions: { 'sliding-context': { summary: true } } });
    // The digest names the files of the exchanges it stands for, with the last action on each.
    expect(report.messages[0]?.content).toMatch(/^Files \(last action\):\n- src\/\d+\.ts: read$/m);
    expect(report.messages[1]?.role).toBe('user');
    expect(events.some((event) => event.type === 'summary-created')).toBe(true);
    // Condensing at the threshold (75% of the budget) kept the window from ever needing to evict.
    expect(events.some((event) => event.type === 'exchange-evicted')).toBe(false);
    expect((await store.history(conversation.agentId)).length).toBe(48);
    expect(JSON.stringify(request)).toContain('Earlier in this conversation');
    const reopened = await openConversation({ store, agentId: conversation.agentId, ...target, counter, system: 'Be terse.' });
    expect((await reopened.request()).request).toEqual(request);
    // BEHAVIOUR 13: the history view shows the cutoff that is sent, with the summarized exchanges out.
    const history = await reopened.history();
    expect(history).toHaveLength(12);
    expect(history.filter((exchange) => exchange.inWindow).length).toBe(report.exchanges.filter((exchange) => exchange.inWindow).length);
    expect(history.filter((exchange) => exchange.summarized).length).toBeGreaterThan(0);
    expect(history.filter((exchange) => exchange.summarized).every((exchange) => !exchange.inWindow)).toBe(true);
    expect(history.map((exchange) => exchange.index)).toEqual([...Array(12).keys()]);
    await store.close();
  });

  const failures: [string, Summarizer, Record<string, unknown>, string][] = [
    ['throws', { name: 'test', summarize: () => Promise.reject(new Error('HTTP 500')) }, {}, 'error'],
    ['times out', { name: 'test', summarize: () => new Promise(() => undefined) }, { timeoutMs: 20 }, 'timeout'],
    ['returns empty text', answer('  '), {}, 'empty'],
    ['is cut off by its output cap', answer('A partial sum', 'length'), {}, 'truncated'],
    ['is not smaller than what it replaces', answer('long '.repeat(5000)), { maxSummaryShare: 10 }, 'not-smaller'],
    ['reaches its cap within a turn', answer('short'), { maxPassesPerTurn: 0 }, 'cap'],
  ];
  for (const [what, summarizer, options, reason] of failures) {
    it(`BEHAVIOURS 8 and 10: when the summarizer ${what}, the window falls back to eviction and the history stays`, async () => {
      const plain = await run(undefined);
      const failing = await run(summarizer, 12, options);
      const expected = (await plain.conversation.request()).report;
      const { report } = await failing.conversation.request();
      expect(report.messages).toEqual(expected.messages);
      expect(report.totalTokens).toBeLessThanOrEqual(2000);
      expect((await failing.store.history(failing.conversation.agentId)).length).toBe(48);
      expect(failing.events).toContainEqual(expect.objectContaining({ type: 'summary-failed', reason }));
      expect(failing.events.some((event) => event.type === 'summary-created')).toBe(false);
      expect(failing.events).toContainEqual(expect.objectContaining({ type: 'exchange-evicted', reason: 'budget' }));
      await plain.store.close();
      await failing.store.close();
    });
  }

  it('tells a summarizer that runs out of time why its signal aborts: a TIMEOUT error', async () => {
    const reasons: unknown[] = [];
    const slow: Summarizer = {
      name: 'test',
      summarize: ({ signal }) => new Promise((_, reject) => {
        signal?.addEventListener('abort', () => {
          reasons.push(signal.reason);
          reject(new Error('aborted'));
        });
      }),
    };
    const { store, events } = await run(slow, 12, { timeoutMs: 20 });
    expect(events).toContainEqual(expect.objectContaining({ type: 'summary-failed', reason: 'timeout', detail: 'the summarizer took longer than 20 ms' }));
    expect(reasons.length).toBeGreaterThan(0);
    for (const reason of reasons) expect(reason).toMatchObject({ name: 'SlidingContextError', code: 'TIMEOUT' });
    await store.close();
  });

  it('BEHAVIOUR 11: a rewind past the summary sets it aside and brings back what it covered', async () => {
    const store = await HistoryStore.open({ memory: true });
    const conversation = await openConversation({ store, ...target, counter, budgetTokens: 2000, condense: { summarizer: digestSummarizer() } });
    await conversation.append(turn(0));
    await conversation.mark('start');
    for (let i = 1; i < 12; i++) {
      await conversation.append(turn(i));
      await conversation.endTurn();
    }
    expect((await conversation.request()).report.messages.some(isSummaryMessage)).toBe(true);
    await conversation.rewind('start');
    const { report } = await conversation.request();
    expect(report.messages.some(isSummaryMessage)).toBe(false);
    expect(report.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(JSON.stringify(report.messages[0]?.content)).toContain('Request 0');
    await store.close();
  });

  it('compact shows the summary first: a dry run changes nothing, a real one pins it', async () => {
    const store = await HistoryStore.open({ memory: true });
    const conversation = await openConversation({ store, ...target, counter, budgetTokens: 100_000, condense: { summarizer: digestSummarizer() } });
    for (let i = 0; i < 5; i++) await conversation.append(turn(i));
    const before = (await conversation.request()).report;
    const preview = await conversation.compact({ dryRun: true });
    expect(preview).toMatchObject({ coveredExchanges: 4, fallback: null, tokensBefore: before.totalTokens });
    expect(preview.tokensAfter).toBeLessThan(preview.tokensBefore);
    // The same window; asked again, the cut is reported kept where the first request had it.
    const { cut: cutBefore, ...windowBefore } = before;
    const { cut, ...windowAfter } = (await conversation.request()).report;
    expect(windowAfter).toEqual(windowBefore);
    expect(cut).toMatchObject({ exchange: cutBefore.exchange, moved: false });
    expect(await store.ranges(conversation.agentId, { kind: 'summary' })).toEqual([]);
    const done = await conversation.compact();
    expect(done.summary).toBe(preview.summary);
    const after = (await conversation.request()).report;
    expect(after.messages.filter(isSummaryMessage)).toHaveLength(1);
    expect(after.totalTokens).toBe(done.tokensAfter);
    expect(after.messages.filter((message) => message.role === 'user')).toHaveLength(1);
    await store.close();
  });
});
