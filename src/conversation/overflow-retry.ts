import { SlidingContextError } from '../errors/sliding-context-error.js';
import type { ContextOverflow } from '../providers/context-overflow.js';

/**
 * The most tokens to send after a provider refused `sent` tokens as too long: our count scaled
 * by the provider's figures with a 2% margin; without figures, a fifth less.
 */
export function ceilingAfterOverflow(sent: number, overflow: ContextOverflow): number {
  const ratio = overflow.tokens !== undefined && overflow.limit !== undefined && overflow.tokens > 0 ? (0.98 * overflow.limit) / overflow.tokens : 0.8;
  return Math.max(1, Math.floor(sent * Math.min(ratio, 0.98)));
}

/** `CONTEXT_OVERFLOW`, naming the tokens sent, the provider's count and limit, and why it stops. */
export function overflowRefusal(error: unknown, sent: number, overflow: ContextOverflow, why: string): SlidingContextError {
  const limit = overflow.limit === undefined ? '' : ` against a limit of ${overflow.limit}`;
  const counted = overflow.tokens === undefined ? '' : ` (${overflow.tokens} as the provider counted them)`;
  return new SlidingContextError('CONTEXT_OVERFLOW', `The provider refused the request as too long: ${sent} tokens sent${counted}${limit}; ${why}.`, { cause: error });
}
