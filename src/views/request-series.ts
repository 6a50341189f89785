import type { TurnCacheUsage } from '../conversation/prompt-cache.js';

/** A turn as the history timeline lists it (`history --json` `timeline`, its exchange rows). */
export interface SeriesTurn {
  readonly type: string;
  readonly index?: number | null | undefined;
  readonly tokens?: number | undefined;
  readonly pinned?: boolean | undefined;
  readonly agentId: string;
  readonly firstSeq?: number | undefined;
  readonly createdAt: Date | string;
  readonly cache?: TurnCacheUsage | undefined;
}

/** A recorded range, as the store gives it back. */
export interface SeriesRange {
  readonly kind: string;
  readonly last: { readonly agentId: string; readonly seq: number };
  readonly data: Readonly<Record<string, unknown>>;
  readonly createdAt: Date | string;
}

/** The request once one turn ended, in tokens, with what the window did in that turn. */
export interface RequestPoint {
  /** The exchange's number in the history (`exchanges[].index`). */
  readonly turn: number;
  readonly tokens: number;
  readonly budgetTokens: number;
  /** Exchanges the window evicted during this turn (from the evicted ranges recorded in it). */
  readonly evictedExchanges: number;
  /** The window's own total right after its last eviction in this turn, as it recorded it. */
  readonly tokensAfterEviction: number | null;
  /** True when a summary was made during this turn. */
  readonly summarized: boolean;
  readonly cache?: TurnCacheUsage | undefined;
}

const time = (value: Date | string) => new Date(value).getTime();
const numberOr = (value: unknown, fallback: number) => (typeof value === 'number' ? value : fallback);

/**
 * The request tokens turn by turn, from what the store records. A turn is a planned exchange
 * (hidden ones excluded); a range belongs to the turn during which it was recorded (from the
 * turn's first message to the next turn's). The point of turn k is the window once turn k ended:
 * the preamble (`pinnedTokens`), plus the summary in force by then (the latest summary range's
 * `tokens`), plus the tokens of the pinned exchange and of every exchange from the one after
 * the last exchange an evicted or summary range had covered by then, through k. The budget line is the
 * latest evicted range's `budgetTokens`, else the agent's.
 */
export function requestSeries(
  turns: readonly SeriesTurn[],
  ranges: readonly SeriesRange[],
  { pinnedTokens, budgetTokens }: { readonly pinnedTokens: number; readonly budgetTokens: number },
): RequestPoint[] {
  const planned = turns.filter((turn) => turn.type === 'exchange' && typeof turn.index === 'number');
  const sorted = [...ranges].sort((a, b) => time(a.createdAt) - time(b.createdAt));
  const points: RequestPoint[] = [];
  let next = 0;
  let windowStart = 0;
  let summaryTokens = 0;
  // What each summary replaced, for the uncompact that sets it aside.
  const beforeSummaries: { windowStart: number; summaryTokens: number }[] = [];
  let budget = budgetTokens;
  // Running sums of tokens over the planned turns: a window's total is a difference of two.
  const sums = [0];
  const pinnedSums = [0];
  for (const turn of planned) {
    sums.push((sums.at(-1) ?? 0) + (turn.tokens ?? 0));
    pinnedSums.push((pinnedSums.at(-1) ?? 0) + (turn.pinned === true ? (turn.tokens ?? 0) : 0));
  }
  const coveredThrough = turnLocator(planned);
  for (const [position, turn] of planned.entries()) {
    const ends = position + 1 < planned.length ? time((planned[position + 1] as SeriesTurn).createdAt) : Infinity;
    let evicted = 0;
    let afterEviction: number | null = null;
    let summarized = false;
    for (; next < sorted.length && time((sorted[next] as SeriesRange).createdAt) < ends; next++) {
      const range = sorted[next] as SeriesRange;
      if (range.kind === 'evicted') {
        windowStart = Math.max(windowStart, coveredThrough(range.last) + 1);
        evicted += numberOr(range.data.exchanges, 0);
        afterEviction = numberOr(range.data.totalTokensAfter, afterEviction ?? 0);
        budget = numberOr(range.data.budgetTokens, budget);
      } else if (range.kind === 'summary') {
        // A summary stands for the exchanges it covers: the window starts after them.
        beforeSummaries.push({ windowStart, summaryTokens });
        windowStart = Math.max(windowStart, coveredThrough(range.last) + 1);
        summaryTokens = numberOr(range.data.tokens, summaryTokens);
        summarized = true;
      } else if (range.kind === 'uncompact') {
        // The summary set aside: the window is what it was before it.
        ({ windowStart, summaryTokens } = beforeSummaries.pop() ?? { windowStart, summaryTokens });
      }
    }
    const start = Math.min(windowStart, position);
    const pinnedBefore = pinnedSums[start] ?? 0;
    const tokens = pinnedTokens + summaryTokens + pinnedBefore + (sums[position + 1] ?? 0) - (sums[start] ?? 0);
    points.push({
      turn: turn.index as number,
      tokens,
      budgetTokens: budget,
      evictedExchanges: evicted,
      tokensAfterEviction: afterEviction,
      summarized,
      ...(turn.cache ? { cache: turn.cache } : {}),
    });
  }
  return points;
}

/**
 * Finds the position of the last planned turn that starts at or before a stored message of the
 * same agent (-1 for none), by binary search over each agent's turns.
 */
function turnLocator(planned: readonly SeriesTurn[]): (last: { readonly agentId: string; readonly seq: number }) => number {
  const byAgent = new Map<string, { seq: number; position: number }[]>();
  for (const [position, turn] of planned.entries()) {
    const list = byAgent.get(turn.agentId) ?? [];
    list.push({ seq: turn.firstSeq ?? Infinity, position });
    byAgent.set(turn.agentId, list);
  }
  return (last) => {
    const list = byAgent.get(last.agentId) ?? [];
    let low = 0;
    let high = list.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((list[middle] as { seq: number }).seq <= last.seq) low = middle + 1;
      else high = middle;
    }
    return low === 0 ? -1 : (list[low - 1] as { position: number }).position;
  };
}

/**
 * The series as columns, one array per figure, index by index (as a chart takes them): a tenth of
 * the size of the points as objects on a long history. `summarized` is 1 or 0.
 */
export function requestColumns(points: readonly RequestPoint[]) {
  return {
    turn: points.map((point) => point.turn),
    tokens: points.map((point) => point.tokens),
    turnBudgetTokens: points.map((point) => point.budgetTokens),
    evictedExchanges: points.map((point) => point.evictedExchanges),
    tokensAfterEviction: points.map((point) => point.tokensAfterEviction),
    summarized: points.map((point) => (point.summarized ? 1 : 0)),
  };
}
