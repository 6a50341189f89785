import type { Exchange } from '../exchange/detect-exchanges.js';
import { type CutExchange, type CutInput, sumTokens } from './cut-input.js';
import { DEFAULT_RETENTION_WINDOW, type SequencePolicy } from './window-policy.js';

/** Which thresholds of a sequence policy a window breaks; none set means none fire. */
export function sequenceThresholdFires(
  policy: SequencePolicy,
  window: { readonly tokens: number; readonly messages: number; readonly turns: number },
): boolean {
  const over = (limit: number | undefined, value: number) => limit !== undefined && limit > 0 && value >= limit;
  return over(policy.tokenThreshold, window.tokens)
    || over(policy.messageThreshold, window.messages)
    || over(policy.turnThreshold, window.turns);
}

/**
 * Forge's sliding fallback in whole exchanges: while a threshold fires, drop the
 * oldest exchange. Leading system messages stay; the window then starts at a user message; a
 * tool call goes with its results, since both are in one exchange; a history with no user
 * message has no exchange and drops nothing; the latest exchange stays.
 */
export function sequenceCut(input: CutInput, policy: SequencePolicy): number {
  const last = input.exchanges.length - 1;
  let first = 0;
  const window = {
    tokens: input.fixedTokens + sumTokens(input.exchanges, 0),
    messages: input.fixedMessages,
    turns: input.fixedExchanges + input.exchanges.length,
  };
  for (const exchange of input.exchanges) window.messages += exchange.messages;
  while (first < last && sequenceThresholdFires(policy, window)) {
    const dropped = input.exchanges[first] as CutExchange;
    window.tokens -= dropped.tokens;
    window.messages -= dropped.messages;
    window.turns--;
    first++;
  }
  return first;
}

/** A run of whole exchanges to condense: indices of its first and last exchange. */
export interface CompressibleRun {
  readonly firstExchange: number;
  readonly lastExchange: number;
}

/**
 * Forge's sequence finder in whole exchanges: the oldest run of exchanges that lie entirely
 * before the last `retentionWindow` messages, leaving out pinned exchanges and the latest one.
 * Null when there is none; the caller then drops instead (see {@link sequenceCut}).
 */
export function findCompressibleRun(
  exchanges: readonly (Pick<Exchange, 'index' | 'firstMessage' | 'lastMessage'> & { readonly pinned?: boolean })[],
  messageCount: number,
  retentionWindow = DEFAULT_RETENTION_WINDOW,
): CompressibleRun | null {
  const retainedFrom = messageCount - retentionWindow;
  const candidates = exchanges.slice(0, -1).filter((exchange) => exchange.pinned !== true && exchange.lastMessage < retainedFrom);
  const first = candidates[0];
  if (!first) return null;
  let last = first;
  for (const exchange of candidates.slice(1)) {
    if (exchange.index !== last.index + 1) break;
    last = exchange;
  }
  return { firstExchange: first.index, lastExchange: last.index };
}
