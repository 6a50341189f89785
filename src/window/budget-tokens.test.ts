import { describe, expect, it } from 'vitest';
import {
  DEFAULT_BUDGET_TOKENS,
  resolveBudgetTokens,
  validateBudgetTokens,
} from './budget-tokens.js';

describe('budget tokens', () => {
  it('defaults to 100,000, else takes SLIDING_CONTEXT_TOKENS, else the explicit value', () => {
    expect(DEFAULT_BUDGET_TOKENS).toBe(100_000);
    expect(resolveBudgetTokens({})).toBe(100_000);
    expect(resolveBudgetTokens({ environmentValue: '' })).toBe(100_000);
    expect(resolveBudgetTokens({ environmentValue: '200000' })).toBe(200_000);
    expect(resolveBudgetTokens({ environmentValue: ' 200000 ' })).toBe(200_000);
    expect(resolveBudgetTokens({ budgetTokens: '5000', environmentValue: '200000' })).toBe(5000);
    expect(resolveBudgetTokens({ budgetTokens: 0 })).toBe(0);
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '12k', '-5', '1e5', '', 'abc', null])(
    'rejects %s with BUDGET_INVALID',
    (value) => {
      expect(() => validateBudgetTokens(value)).toThrow(
        expect.objectContaining({ code: 'BUDGET_INVALID' }),
      );
    },
  );

  it('says a whole number past 2^53 is too large, naming the maximum', () => {
    for (const value of ['99999999999999999999', 2 ** 53, 1e20]) {
      expect(() => validateBudgetTokens(value, '--budget')).toThrow(
        expect.objectContaining({ code: 'BUDGET_INVALID', message: expect.stringMatching(/^--budget is too large: at most 9007199254740991 tokens/) }),
      );
    }
    expect(validateBudgetTokens(Number.MAX_SAFE_INTEGER)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('names where a bad value came from', () => {
    expect(() => resolveBudgetTokens({ environmentValue: 'lots' })).toThrow(
      /SLIDING_CONTEXT_TOKENS/,
    );
    expect(() => resolveBudgetTokens({ budgetTokens: '-3' })).toThrow(/--budget/);
    // Empty is unset; all whitespace is refused, as from `--budget`.
    expect(() => resolveBudgetTokens({ environmentValue: '  ' })).toThrow(/^SLIDING_CONTEXT_TOKENS must be/);
    expect(() => resolveBudgetTokens({ budgetTokens: '  ' })).toThrow(/^--budget must be/);
  });
});
