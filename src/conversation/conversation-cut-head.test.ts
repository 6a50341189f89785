import { describe, expect, it } from 'vitest';
import { digestSummarizer } from '../condense/digest-summarizer.js';
import { isSummaryMessage } from '../condense/stored-summary.js';
import { HistoryStore } from '../store/history-store.js';
import { fixTurn } from '../testing/message-builders.js';
import { loadTokenCounter } from '../tokens/load-token-counter.js';
import type { ModelMessage } from '../message/message.js';
import { openConversation } from './conversation.js';

const counter = await loadTokenCounter();
const target = { provider: 'openai', model: 'gpt-4o' };
const turn = (i: number) => fixTurn(i, { padding: ` ${'Context. '.repeat(20)}` });

/** The window's head: the messages up to and including the first exchange's user message. */
function head(messages: readonly ModelMessage[]): string {
  const firstUser = messages.findIndex((message) => message.role === 'user');
  return JSON.stringify(messages.slice(0, firstUser + 1));
}

describe('a cache-aware window rewrites its head only at a cut', () => {
  it('keeps the digest and the first message sent the same between cuts, and each request a prefix of the next until the cut moves', async () => {
    const store = await HistoryStore.open({ memory: true });
    const conversation = await openConversation({
      store, ...target, counter, budgetTokens: 2000, system: 'Be terse.',
      policy: { name: 'cache-aware', lowWaterMark: 0.6 },
      // The threshold at the budget: a summary is made when the cut moves.
      condense: { summarizer: digestSummarizer(), thresholdPercent: 100 },
    });
    const heads: string[] = [];
    let previous: readonly ModelMessage[] = [];
    let cuts = 0;
    let summaries = 0;
    conversation.on((event) => {
      if (event.type === 'summary-created') summaries++;
    });
    for (let i = 0; i < 30; i++) {
      await conversation.append(turn(i));
      const { report } = await conversation.request();
      await conversation.endTurn();
      heads.push(head(report.messages));
      const extends_ = previous.every((message, index) => JSON.stringify(message) === JSON.stringify(report.messages[index]));
      if (!extends_) cuts++;
      // Between cuts the request only grows at its end: the provider's cache serves all of the previous one.
      if (heads.length > 1 && heads.at(-1) === heads.at(-2)) expect(extends_).toBe(true);
      expect(report.totalTokens).toBeLessThanOrEqual(2000);
      previous = report.messages;
    }
    expect(summaries).toBeGreaterThan(0);
    expect(heads.some((value) => value.includes('sliding-context'))).toBe(true);
    // The head changed at a few cuts, not on every turn.
    expect(cuts).toBeGreaterThan(0);
    expect(cuts).toBeLessThan(10);
    expect(new Set(heads).size).toBeLessThanOrEqual(cuts + 1);
    expect(previous.filter(isSummaryMessage)).toHaveLength(1);
    await store.close();
  });
});
