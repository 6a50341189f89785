import { SlidingContextError } from '../errors/sliding-context-error.js';

/** Budget used when none is configured, in tokens. */
export const DEFAULT_BUDGET_TOKENS = 100_000;

/**
 * Checks a budget in tokens: a whole number, zero or more (0 disables windowing), at most
 * `Number.MAX_SAFE_INTEGER`. Strings must be plain digits, whitespace around them ignored.
 * `source` names where the value came from, for the error.
 * @throws SlidingContextError `BUDGET_INVALID`
 */
export function validateBudgetTokens(value: unknown, source = 'budgetTokens'): number {
  const parsed =
    typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value.trim()) : value;
  if (typeof parsed === 'number' && Number.isSafeInteger(parsed) && parsed >= 0) return parsed;
  // Past 2^53 a number is whole but no longer exact: say it is too large, not that it is not whole.
  const detail = typeof parsed === 'number' && parsed > Number.MAX_SAFE_INTEGER
    ? `is too large: at most ${Number.MAX_SAFE_INTEGER} tokens (2^53 - 1)`
    : 'must be a whole number of tokens, 0 or more (0 disables windowing)';
  const got = typeof value === 'number' ? String(value) : JSON.stringify(value);
  throw new SlidingContextError('BUDGET_INVALID', `${source} ${detail}; got ${got}.`);
}

/**
 * {@link validateBudgetTokens} for a library option typed as a number: a string is refused
 * rather than read as digits.
 * @throws SlidingContextError `BUDGET_INVALID`
 */
export function validateBudgetTokensOption(value: unknown, source = 'budgetTokens'): number {
  if (typeof value !== 'number') {
    throw new SlidingContextError('BUDGET_INVALID', `${source} must be a number of tokens, not ${value === null ? 'null' : typeof value}; got ${JSON.stringify(value)}.`);
  }
  return validateBudgetTokens(value, source);
}

/**
 * Picks the budget: an explicit value, else the `SLIDING_CONTEXT_TOKENS` value the caller read
 * from its environment, else {@link DEFAULT_BUDGET_TOKENS}. An empty environment value is unset;
 * an all-whitespace one is refused, as an all-whitespace `--budget` is.
 */
export function resolveBudgetTokens(options: {
  readonly budgetTokens?: number | string | undefined;
  readonly environmentValue?: string | undefined;
}): number {
  if (options.budgetTokens !== undefined)
    return validateBudgetTokens(options.budgetTokens, '--budget');
  if (options.environmentValue !== undefined && options.environmentValue !== '') {
    return validateBudgetTokens(options.environmentValue, 'SLIDING_CONTEXT_TOKENS');
  }
  return DEFAULT_BUDGET_TOKENS;
}
