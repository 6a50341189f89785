import { describe, expect, it } from 'vitest';
import { isSlidingContextError } from '../errors/sliding-context-error.js';
import { modelBudget } from './model-budget.js';

function refusal(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('modelBudget', () => {
  it('refuses a budget of zero or less with BUDGET_INVALID naming the figures, never 0 (which disables windowing)', () => {
    const cases = [
      () => modelBudget({ provider: 'openai', model: 'llama-local', known: false, contextWindowTokens: 4096, maxOutputTokens: 4096 }),
      () => modelBudget({ known: true, contextWindowTokens: 1000, maxOutputTokens: 5000 }),
      () => modelBudget({ known: true, contextWindowTokens: 200_000, maxOutputTokens: 8192 }, { reservedOutputTokens: 1e9 }),
      () => modelBudget({ known: true, contextWindowTokens: 10_000, maxOutputTokens: 9000 }),
    ];
    for (const run of cases) {
      const error = refusal(run);
      expect(isSlidingContextError(error, 'BUDGET_INVALID'), String(error)).toBe(true);
      expect((error as Error).message).toMatch(/context window \d+ .*reserved output.*--max-output.*--budget N/);
    }
    expect((refusal(cases[0]!) as Error).message).toContain('openai/llama-local works out to -4506 tokens: context window 4096 less a 0.1 buffer less 8192 reserved output');
  });

  it('keeps a budget of one token or more', () => {
    expect(modelBudget({ known: true, contextWindowTokens: 10_000, maxOutputTokens: 8999 }).allowedTokens).toBe(1);
  });
});
