import { describe, expect, it } from 'vitest';
import { HistoryStore } from '../store/history-store.js';
import { loadTokenCounter } from '../tokens/load-token-counter.js';
import { openConversation } from './conversation.js';
import { CACHE_USAGE_RANGE } from './prompt-cache.js';

const counter = await loadTokenCounter();

/** Two turns of a conversation, the answers stored as `storeAnswer` does; the cache ranges recorded. */
async function twoTurns(storeAnswer: 'with-the-figures' | 'with-a-copy-of-the-figures' | 'apart') {
  const store = await HistoryStore.open({ memory: true });
  const conversation = await openConversation({ store, provider: 'openai', model: 'gpt-4o', counter, budgetTokens: 10_000 });
  const writes: string[] = [];
  const stop = await store.onWrite(() => writes.push('write'));
  for (const turn of [1, 2]) {
    await conversation.append([{ role: 'user', content: `question ${turn}` }]);
    const usage = { prompt_tokens: 100 * turn, completion_tokens: 3, total_tokens: 100 * turn + 3, prompt_tokens_details: { cached_tokens: 50 * turn } };
    await conversation.send(() => Promise.resolve({ usage }));
    writes.length = 0;
    const answer = { role: 'assistant' as const, content: `answer ${turn}` };
    if (storeAnswer === 'apart') await conversation.append([answer]);
    else await conversation.append([answer], { endsTurn: { usage } });
    // A caller may hand endTurn its own copy of the usage (parsed again, or rebuilt): the same figures.
    await conversation.endTurn({ usage: storeAnswer === 'with-a-copy-of-the-figures' ? structuredClone(usage) : usage });
    expect(writes).toHaveLength(storeAnswer === 'apart' ? 2 : 1);
  }
  await stop();
  const ranges = (await store.ranges(conversation.agentId, { kind: CACHE_USAGE_RANGE })).map((range) => ({ first: range.first, last: range.last, data: range.data }));
  const view = await conversation.historyView();
  await store.close();
  return { ranges, cache: view.cache, agentId: conversation.agentId };
}

describe('an answer appended as the end of its turn', () => {
  it('stores the turn\'s cache figures in the answer\'s transaction, at the answer, as endTurn alone would', async () => {
    const together = await twoTurns('with-the-figures');
    const apart = await twoTurns('apart');
    const at = (agentId: string, seq: number) => ({ agentId, seq });
    expect(together.ranges).toEqual([
      { first: at(together.agentId, 2), last: at(together.agentId, 2), data: { requests: 1, inputTokens: 100, cacheReadTokens: 50, cacheWriteTokens: 0 } },
      { first: at(together.agentId, 4), last: at(together.agentId, 4), data: { requests: 1, inputTokens: 200, cacheReadTokens: 100, cacheWriteTokens: 0 } },
    ]);
    expect(apart.ranges.map(({ data }) => data)).toEqual(together.ranges.map(({ data }) => data));
    expect(together.cache).toEqual(apart.cache);
  });

  it('records the figures once when endTurn is given an equal copy of the usage the append ended the turn with', async () => {
    const together = await twoTurns('with-the-figures');
    const copied = await twoTurns('with-a-copy-of-the-figures');
    expect(copied.ranges.map(({ data }) => data)).toEqual(together.ranges.map(({ data }) => data));
    expect(copied.cache).toEqual(together.cache);
  });

  it('when the answer\'s append fails, endTurn still records every request of the turn', async () => {
    const store = await HistoryStore.open({ memory: true });
    try {
      const conversation = await openConversation({ store, provider: 'openai', model: 'gpt-4o', counter, budgetTokens: 10_000 });
      await conversation.append([{ role: 'user', content: 'question' }]);
      const usages = [40, 60].map((cached) => ({ prompt_tokens: 100, completion_tokens: 3, total_tokens: 103, prompt_tokens_details: { cached_tokens: cached } }));
      for (const usage of usages) await conversation.send(() => Promise.resolve({ usage }));
      // Another writer moves the agent on: the answer's append is refused, its figures not stored.
      await store.append(conversation.agentId, [{ role: 'event', kind: 'mark', label: 'elsewhere' }]);
      const last = usages[1];
      await expect(conversation.append([{ role: 'assistant', content: 'answer' }], { endsTurn: { usage: last } })).rejects.toMatchObject({ code: 'STALE_WINDOW' });
      await conversation.endTurn({ usage: last });
      const ranges = await store.ranges(conversation.agentId, { kind: CACHE_USAGE_RANGE });
      expect(ranges.map((range) => range.data)).toEqual([{ requests: 2, inputTokens: 200, cacheReadTokens: 100, cacheWriteTokens: 0 }]);
    } finally {
      await store.close();
    }
  });
});
