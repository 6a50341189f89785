import { fractionCut } from './fraction-policy.js';
import { sequenceCut } from './sequence-policy.js';
import type { WindowPolicy } from './window-policy.js';
import { type CutExchange, type CutInput, sumTokens } from './cut-input.js';

export type { CutExchange, CutInput } from './cut-input.js';

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
