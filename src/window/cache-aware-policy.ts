import { type CutExchange, type CutInput, sumTokens } from './cut-input.js';
import { type CacheAwarePolicy, DEFAULT_LOW_WATER_MARK } from './window-policy.js';

/** The tokens a cut of the `cache-aware` policy goes down to: the low-water mark's share of the budget. */
export function lowWaterTokens(policy: CacheAwarePolicy, budgetTokens: number): number {
  return Math.floor(budgetTokens * (policy.lowWaterMark ?? DEFAULT_LOW_WATER_MARK));
}

/**
 * The `cache-aware` cut: the window's start stays where it was (`previousCut`) while the request
 * fits the budget, so the request's head stays the same and the provider's prompt cache keeps
 * serving it. When the request would pass the budget, the cut moves once, oldest exchanges
 * first, until the request is at or under the low-water mark (or only the latest is left).
 */
export function cacheAwareCut(input: CutInput, policy: CacheAwarePolicy): number {
  const last = input.exchanges.length - 1;
  if (last < 0 || input.budgetTokens === 0) return 0;
  let first = Math.min(Math.max(input.previousCut ?? 0, 0), last);
  let tokens = input.fixedTokens + sumTokens(input.exchanges, first);
  if (tokens <= input.budgetTokens) return first;
  const lowWater = lowWaterTokens(policy, input.budgetTokens);
  while (first < last && tokens > lowWater) {
    tokens -= (input.exchanges[first] as CutExchange).tokens;
    first++;
  }
  return first;
}
