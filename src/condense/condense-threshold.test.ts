import { describe, expect, it } from 'vitest';
import { modelBudget } from '../window/model-budget.js';
import { resolveCondenseThreshold, shouldCondense } from './condense-threshold.js';

describe('modelBudget', () => {
  it('gives the documented worked examples: 200k reserving 8,192 allows 171,808; 128k reserving 4,096 allows 111,104', () => {
    expect(modelBudget({ known: true, contextWindowTokens: 200_000, maxOutputTokens: 8192 }).allowedTokens).toBe(171_808);
    expect(modelBudget({ known: true, contextWindowTokens: 128_000, maxOutputTokens: 4096 }).allowedTokens).toBe(111_104);
  });

  it('reserves the model\'s max output when known, 8,192 when not, and takes overrides', () => {
    expect(modelBudget({ known: true, contextWindowTokens: 200_000, maxOutputTokens: 64_000 })).toEqual({
      contextWindowTokens: 200_000,
      reservedOutputTokens: 64_000,
      bufferFraction: 0.1,
      allowedTokens: 116_000,
    });
    expect(modelBudget({ known: false, contextWindowTokens: 128_000, maxOutputTokens: 16_384 }).reservedOutputTokens).toBe(8192);
    expect(modelBudget({ known: true, contextWindowTokens: 200_000, maxOutputTokens: 64_000 }, { reservedOutputTokens: 1000, bufferFraction: 0 }).allowedTokens).toBe(199_000);
    expect(() => modelBudget({ known: true, contextWindowTokens: 1000, maxOutputTokens: 4000 })).toThrow(/BUDGET_INVALID|works out to/);
  });
});

describe('resolveCondenseThreshold', () => {
  const resolve = (profile: string | undefined, warnings: string[]) =>
    resolveCondenseThreshold({ globalPercent: 75, profilePercents: { code: 60, inherit: -1, low: 3, high: 101, edge: 5 }, profile, warn: (message) => warnings.push(message) });

  it('uses a profile value in range, inherits on −1 or a missing profile, and warns then inherits out of range', () => {
    const warnings: string[] = [];
    expect(resolve('code', warnings)).toBe(60);
    expect(resolve('edge', warnings)).toBe(5);
    expect(resolve('inherit', warnings)).toBe(75);
    expect(resolve('unknown', warnings)).toBe(75);
    expect(resolve(undefined, warnings)).toBe(75);
    expect(warnings).toEqual([]);
    expect(resolve('low', warnings)).toBe(75);
    expect(resolve('high', warnings)).toBe(75);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('Condense threshold 3 for profile "low" is outside 5–100');
  });
});

describe('shouldCondense', () => {
  const window = { contextWindowTokens: 200_000, allowedTokens: 171_808, thresholdPercent: 75 };
  it('fires at the threshold percentage or past the tokens allowed, not below', () => {
    expect(shouldCondense({ ...window, tokens: 149_999 })).toBe(false);
    expect(shouldCondense({ ...window, tokens: 150_000 })).toBe(true);
    expect(shouldCondense({ ...window, thresholdPercent: 100, tokens: 171_809 })).toBe(true);
    expect(shouldCondense({ ...window, thresholdPercent: 100, tokens: 171_808 })).toBe(false);
  });
});
