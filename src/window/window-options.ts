import { SlidingContextError } from '../errors/sliding-context-error.js';
import { isRecord } from '../message/is-record.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { DEFAULT_BUDGET_TOKENS, validateBudgetTokensOption } from './budget-tokens.js';
import { DEFAULT_WINDOW_POLICY, validateWindowPolicy, type WindowPolicy } from './window-policy.js';

/** The options `planWindow` and `WindowState` share, checked, with their defaults. */
export interface CheckedWindowOptions {
  readonly budgetTokens: number;
  readonly policy: WindowPolicy;
}

/**
 * Checks the options `planWindow` and `WindowState` share: a counter, the budget and the policy
 * (the check `openConversation` makes).
 * @throws SlidingContextError `INVALID_OPTION` (no options, no counter), `BUDGET_INVALID` or `INVALID_POLICY`
 */
export function checkWindowOptions(options: unknown, where: string): CheckedWindowOptions {
  if (!isRecord(options)) throw new SlidingContextError('INVALID_OPTION', `${where}: expected an options object, received ${options === null ? 'null' : typeof options}.`);
  const counter: unknown = options.counter;
  if (!isTokenCounter(counter)) {
    throw new SlidingContextError('INVALID_OPTION', `${where}: counter must be a TokenCounter (countMessage and countPreamble functions), e.g. from createTokenCounter(); got ${counter === undefined ? 'none' : typeof counter}.`);
  }
  return {
    budgetTokens: validateBudgetTokensOption(options.budgetTokens ?? DEFAULT_BUDGET_TOKENS),
    policy: options.policy === undefined ? DEFAULT_WINDOW_POLICY : validateWindowPolicy(options.policy, 'policy'),
  };
}

function isTokenCounter(value: unknown): value is TokenCounter {
  return isRecord(value) && typeof value.countMessage === 'function' && typeof value.countPreamble === 'function';
}
