import { describe, expect, it } from 'vitest';
import { requestSeries, type SeriesRange, type SeriesTurn } from './request-series.js';

const agentId = 'agent';
/** Turn `index` starts at seq 10·index + 1, at second `index`. */
const turn = (index: number, tokens: number, pinned = false): SeriesTurn => ({
  type: 'exchange', index, tokens, pinned, agentId, firstSeq: 10 * index + 1, createdAt: new Date(index * 1000),
});
/** A range recorded during turn `during`, covering messages through the end of turn `through`. */
const range = (kind: string, during: number, through: number, data: Record<string, unknown>): SeriesRange => ({
  kind, last: { agentId, seq: 10 * through + 9 }, data, createdAt: new Date(during * 1000 + 500),
});

describe('requestSeries', () => {
  const turns = [turn(0, 100), turn(1, 200), turn(2, 300), turn(3, 400), turn(4, 500)];

  it('without ranges, adds each turn to the preamble', () => {
    const points = requestSeries(turns, [], { pinnedTokens: 10, budgetTokens: 5000 });
    expect(points.map((point) => point.tokens)).toEqual([110, 310, 610, 1010, 1510]);
    expect(points.map((point) => point.turn)).toEqual([0, 1, 2, 3, 4]);
  });

  it('starts the window after what an eviction or a summary covered, from the turn it was recorded in on', () => {
    const ranges = [
      range('summary', 3, 1, { tokens: 50 }),
      range('evicted', 2, 0, { exchanges: 1, totalTokensAfter: 510, budgetTokens: 600 }),
    ];
    const points = requestSeries(turns, ranges, { pinnedTokens: 10, budgetTokens: 5000 });
    expect(points.map((point) => point.tokens)).toEqual([110, 310, 10 + 200 + 300, 10 + 50 + 300 + 400, 10 + 50 + 300 + 400 + 500]);
    expect(points.map((point) => point.evictedExchanges)).toEqual([0, 0, 1, 0, 0]);
    expect(points.map((point) => point.summarized)).toEqual([false, false, false, true, false]);
    expect(points.map((point) => point.budgetTokens)).toEqual([5000, 5000, 600, 600, 600]);
    expect(points[2]?.tokensAfterEviction).toBe(510);
  });

  it('keeps a pinned first exchange in every window, and leaves out exchanges a clear or rewind hid', () => {
    const hidden: SeriesTurn = { type: 'exchange', index: null, tokens: 9999, agentId, firstSeq: 15, createdAt: new Date(1500) };
    const points = requestSeries([turn(0, 100, true), hidden, ...turns.slice(1)], [range('evicted', 3, 2, { exchanges: 2 })], { pinnedTokens: 0, budgetTokens: 5000 });
    expect(points).toHaveLength(5);
    expect(points[3]?.tokens).toBe(100 + 400);
  });
});
