import type { TokenCount } from './token-counter.js';

/**
 * Adds counts: tokens are summed, the sum is exact only if every part is, and the method names
 * every distinct method used (sorted, joined by `+`).
 */
export function sumTokenCounts(counts: Iterable<TokenCount>): TokenCount {
  let tokens = 0;
  let exact = true;
  const methods = new Set<string>();
  for (const count of counts) {
    tokens += count.tokens;
    exact &&= count.exact;
    methods.add(count.method);
  }
  return { tokens, exact, method: methods.size === 0 ? 'none' : [...methods].sort().join('+') };
}
