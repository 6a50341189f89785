import { type CutInput, type CutExchange, sumTokens } from './cut-input.js';
import { DEFAULT_FRACTION } from './window-policy.js';

/**
 * Roo Code's truncation in whole exchanges: while the request is over budget, remove
 * `fraction` of the exchanges between the first and the latest (at least one), oldest first.
 * Roo counts messages and rounds to an even number so that a user/assistant pair goes together;
 * counting exchanges keeps every tool call with its result whatever the shape of the turn.
 */
export function fractionCut(input: CutInput, fraction = DEFAULT_FRACTION): number {
  const last = input.exchanges.length - 1;
  let first = 0;
  let tokens = input.fixedTokens + sumTokens(input.exchanges, first);
  while (first < last && input.budgetTokens > 0 && tokens > input.budgetTokens) {
    const removed = Math.min(last - first, Math.max(1, Math.floor((last - first) * fraction)));
    for (let step = 0; step < removed; step++) tokens -= (input.exchanges[first + step] as CutExchange).tokens;
    first += removed;
  }
  return first;
}
