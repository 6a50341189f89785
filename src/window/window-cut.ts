import { cacheAwareCut } from './cache-aware-policy.js';
import { fractionCut } from './fraction-policy.js';
import { sequenceCut } from './sequence-policy.js';
import type { WindowPolicy } from './window-policy.js';
import { type CutExchange, type CutInput, sumTokens } from './cut-input.js';

export type { CutExchange, CutInput } from './cut-input.js';

/**
 * The index of the first exchange kept, as the policy chooses it. Whatever the policy,
 * the budget stays a ceiling (older exchanges go until the request fits) and the latest exchange
 * stays. The choice depends only on the exchanges (and, for `cache-aware`, the previous cut),
 * so the same history gives the same cutoff.
 */
export function chooseCut(policy: WindowPolicy, input: CutInput): number {
  const last = input.exchanges.length - 1;
  if (last < 0) return 0;
  let first = 0;
  if (policy.name === 'fraction') first = fractionCut(input, policy.fraction);
  else if (policy.name === 'sequence') first = sequenceCut(input, policy);
  else if (policy.name === 'cache-aware') first = cacheAwareCut(input, policy);
  let tokens = input.fixedTokens + sumTokens(input.exchanges, first);
  while (first < last && input.budgetTokens > 0 && tokens > input.budgetTokens) {
    tokens -= (input.exchanges[first] as CutExchange).tokens;
    first++;
  }
  return first;
}
