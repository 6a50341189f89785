import type { ModelMessage } from '../message/message.js';
import type { PromptCacheHints } from '../providers/prompt-cache-hints.js';
import { parseAgentId } from '../store/agent-id.js';
import type { ContextRange, ContextRangeInput, ConversationStore, MessagePosition } from './conversation-store.js';
import { addCacheUsage, type CacheUsage, cacheUsageFromUsage } from '../tokens/cache-usage.js';

/** The range kind a turn's cache figures are recorded under, at the last message of the turn: the exchange holding it owns them. */
export const CACHE_USAGE_RANGE = 'cache-usage';

/** A turn's (or a session's) cache figures: the requests that reported usage, added up. */
export interface TurnCacheUsage extends CacheUsage {
  readonly requests: number;
}

/** How many leading messages two requests share, compared message by message (the same object, or the same content). */
export function sharedLeadingMessages(previous: readonly ModelMessage[], current: readonly ModelMessage[]): number {
  const length = Math.min(previous.length, current.length);
  for (let index = 0; index < length; index++) {
    const before = previous[index];
    const now = current[index];
    if (before !== now && JSON.stringify(before) !== JSON.stringify(now)) return index;
  }
  return length;
}

/**
 * A conversation's view of the provider's prompt cache: what the previous request held (so the
 * next one can mark where the prefix they share ends), the cache key (the agent), and the usage
 * each request of the current turn reported.
 */
export class PromptCacheTracker {
  /** The root agent's id: a fork shares its parent's prefix, so the whole tree shares one cache key. */
  readonly #key: string;
  #previous: readonly ModelMessage[] | undefined;
  #turn: unknown[] = [];

  constructor(agentId: string) {
    this.#key = parseAgentId(agentId).rootId;
  }

  /** The hints for a request of these messages; remembers them as the previous request. */
  hints(messages: readonly ModelMessage[]): PromptCacheHints {
    const stable = this.#previous && sharedLeadingMessages(this.#previous, messages);
    this.#previous = messages;
    return { key: this.#key, ...(stable === undefined ? {} : { stablePrefixMessages: stable }) };
  }

  /** Notes the usage a sent request's result carries (an SDK response or a chat reply both have `usage`), and gives the result back. */
  noted<T>(result: T): T {
    if (typeof result === 'object' && result !== null && 'usage' in result && result.usage !== undefined) this.#turn.push(result.usage);
    return result;
  }

  /**
   * The turn's figures, with the usage given at its end (unless a result already carried that
   * very object); undefined when no request reported any. The turn goes on (see {@link endTurn}).
   */
  turnFigures(usage: unknown): TurnCacheUsage | undefined {
    const all = usage === undefined || this.#turn.includes(usage) ? this.#turn : [...this.#turn, usage];
    const read = all.map(cacheUsageFromUsage).filter((figures): figures is CacheUsage => figures !== undefined);
    return read.length === 0 ? undefined : { ...addCacheUsage(read), requests: read.length };
  }

  /** The turn's figures, as {@link turnFigures} gives them. Starts the next turn. */
  endTurn(usage: unknown): TurnCacheUsage | undefined {
    const figures = this.turnFigures(usage);
    this.#turn = [];
    return figures;
  }
}

/** The range that records a turn's cache figures with its exchange. */
export function cacheUsageRange(first: MessagePosition, last: MessagePosition, usage: TurnCacheUsage): ContextRangeInput {
  return { kind: CACHE_USAGE_RANGE, first, last, data: { ...usage } };
}

/** A recorded range's figures, or undefined when it holds none. */
export function turnCacheUsageOf(range: Pick<ContextRange, 'data'>): TurnCacheUsage | undefined {
  const { requests, inputTokens, cacheReadTokens, cacheWriteTokens } = range.data;
  const numbers = [requests, inputTokens, cacheReadTokens, cacheWriteTokens];
  if (!numbers.every((value) => typeof value === 'number' && Number.isFinite(value))) return undefined;
  const [turnRequests, input, read, write] = numbers as number[];
  return { requests: turnRequests as number, inputTokens: input as number, cacheReadTokens: read as number, cacheWriteTokens: write as number };
}

/** A turn's recorded figures and where they were recorded. */
export interface RecordedCacheUsage {
  readonly at: MessagePosition;
  readonly usage: TurnCacheUsage;
}

/** Cache figures recorded for an agent, its ancestors' up to the fork included, oldest first. */
export async function readCacheUsage(store: ConversationStore, agentId: string): Promise<RecordedCacheUsage[]> {
  const recorded: RecordedCacheUsage[] = [];
  for (const range of await store.ranges(agentId, { kind: CACHE_USAGE_RANGE, inherited: true })) {
    const usage = turnCacheUsageOf(range);
    if (usage) recorded.push({ at: range.last, usage });
  }
  return recorded;
}

/**
 * Each exchange's figures: those recorded at one of its messages (the exchange of the same agent
 * that starts last at or before the place recorded), added up. Keyed `agentId:firstSeq`.
 */
export function cacheUsageByExchange(
  exchanges: readonly { readonly agentId: string; readonly firstSeq: number }[],
  recorded: readonly RecordedCacheUsage[],
): Map<string, TurnCacheUsage> {
  const starts = new Map<string, number[]>();
  for (const exchange of exchanges) {
    // Pushed, not spread into a new array: a copy per exchange is quadratic in a long history.
    const seqs = starts.get(exchange.agentId) ?? [];
    seqs.push(exchange.firstSeq);
    starts.set(exchange.agentId, seqs);
  }
  for (const seqs of starts.values()) seqs.sort((a, b) => a - b);
  const byExchange = new Map<string, TurnCacheUsage>();
  for (const { at, usage } of recorded) {
    const start = lastAtOrBefore(starts.get(at.agentId) ?? [], at.seq);
    if (start === undefined) continue;
    const key = `${at.agentId}:${start}`;
    const before = byExchange.get(key);
    byExchange.set(key, before ? addTurns([before, usage]) : usage);
  }
  return byExchange;
}

/** The last of the sorted `seqs` at or before `seq`, found by halving (a scan per turn is quadratic in a long history). */
function lastAtOrBefore(seqs: readonly number[], seq: number): number | undefined {
  let low = 0;
  let high = seqs.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((seqs[middle] as number) <= seq) low = middle + 1;
    else high = middle;
  }
  return low === 0 ? undefined : seqs[low - 1];
}

/** Turns' figures added up. */
export function addTurns(turns: readonly TurnCacheUsage[]): TurnCacheUsage {
  return { ...addCacheUsage(turns), requests: turns.reduce((sum, turn) => sum + turn.requests, 0) };
}

/** Records a turn's cache figures at the last message stored (nothing without figures or messages). */
export async function recordTurnCacheUsage(
  store: ConversationStore,
  agentId: string,
  at: MessagePosition | undefined,
  usage: TurnCacheUsage | undefined,
): Promise<void> {
  if (at && usage) await store.recordRanges(agentId, [cacheUsageRange(at, at, usage)]);
}

/** A planned history with each exchange's cache figures and the session's total (when any were recorded). */
export function withCacheUsage<E extends { readonly agentId: string; readonly firstSeq: number }, P extends { readonly exchanges: readonly E[] }>(
  planned: P,
  recorded: readonly RecordedCacheUsage[] | undefined,
): P & { exchanges: (E & { cache?: TurnCacheUsage })[]; cache?: TurnCacheUsage } {
  if (!recorded || recorded.length === 0) return { ...planned, exchanges: [...planned.exchanges] };
  const byExchange = cacheUsageByExchange(planned.exchanges, recorded);
  const exchanges = planned.exchanges.map((exchange) => {
    const cache = byExchange.get(`${exchange.agentId}:${exchange.firstSeq}`);
    return cache ? { ...exchange, cache } : exchange;
  });
  return { ...planned, exchanges, cache: addTurns(recorded.map((entry) => entry.usage)) };
}
