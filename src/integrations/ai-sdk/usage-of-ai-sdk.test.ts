import { describe, expect, it } from 'vitest';
import { inputTokensFromUsage } from '../../tokens/provider-usage.js';
import { usageOfAiSdk } from './usage-of-ai-sdk.js';

describe('the AI SDK usage, read as a provider usage', () => {
  it('counts every input token, cached ones included, in each shape the AI SDK reports', () => {
    const cached = usageOfAiSdk({ inputTokens: { total: 1_200, noCache: 200, cacheRead: 900, cacheWrite: 100 }, outputTokens: { total: 5 } });
    expect(cached).toEqual({ input_tokens: 200, cache_read_input_tokens: 900, cache_creation_input_tokens: 100 });
    expect(inputTokensFromUsage(cached)).toBe(1_200);
    expect(inputTokensFromUsage(usageOfAiSdk({ inputTokens: { total: 640, noCache: undefined, cacheRead: undefined, cacheWrite: undefined } }))).toBe(640);
    expect(inputTokensFromUsage(usageOfAiSdk({ inputTokens: 75, outputTokens: 3 }))).toBe(75);
    expect(usageOfAiSdk({ inputTokens: { total: undefined } })).toBeUndefined();
    expect(usageOfAiSdk(undefined)).toBeUndefined();
  });
});
