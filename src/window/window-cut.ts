import { fractionCut } from './fraction-policy.js';
import { sequenceCut } from './sequence-policy.js';
import type { WindowPolicy } from './window-policy.js';

/** What a policy sees of one exchange. */
export interface CutExchange {
  readonly tokens: number;
  readonly messages: number;
}

/** What a policy chooses the cutoff from: the exchanges it may evict, oldest first, and what is always sent. */
export interface CutInput {
  readonly exchanges: readonly CutExchange[];
  /** Tokens always sent: the preamble, and the first exchange when pinned. */
  readonly fixedTokens: number;
  /** Messages always sent, likewise. */
  readonly fixedMessages: number;
  /** Exchanges always sent: 1 when the first is pinned, else 0. */
  readonly fixedExchanges: number;
  /** 0 disables the budget ceiling (thresholds still apply). */
  readonly budgetTokens: number;
}

/**
 * The index of the first exchange kept, as the policy chooses it. Whatever the policy,
 * the budget stays a ceiling (older exchanges go until the request fits) and the latest exchange
 * stays. The choice depends only on the exchanges, so the same history gives the same cutoff.
 */
export function chooseCut(policy: WindowPolicy, input: CutInput): number {
  const last = input.exchanges.length - 1;
  if (last < 0) return 0;
  let first = policy.name === 'fraction' ? fractionCut(input, policy.fraction) : policy.name === 'sequence' ? sequenceCut(input, policy) : 0;
  let tokens = input.fixedTokens + sumTokens(input.exchanges, first);
  while (first < last && input.budgetTokens > 0 && tokens > input.budgetTokens) {
    tokens -= (input.exchanges[first] as CutExchange).tokens;
    first++;
  }
  return first;
}

/** Tokens of the exchanges from `first` on. */
export function sumTokens(exchanges: readonly CutExchange[], first: number): number {
  let tokens = 0;
  for (let index = first; index < exchanges.length; index++) tokens += (exchanges[index] as CutExchange).tokens;
  return tokens;
}
