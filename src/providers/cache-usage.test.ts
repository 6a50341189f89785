import type { Usage as AnthropicUsage } from '@anthropic-ai/sdk/resources/messages';
import type { GenerateContentResponseUsageMetadata } from '@google/genai';
import type { CompletionUsage } from 'openai/resources/completions';
import type { ResponseUsage } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { addCacheUsage, cacheUsageFromUsage } from '../tokens/cache-usage.js';

describe('cache figures from each provider’s usage', () => {
  it('Anthropic: reads and writes beside the plain input tokens', () => {
    const usage: AnthropicUsage = {
      input_tokens: 50,
      cache_read_input_tokens: 9_000,
      cache_creation_input_tokens: 950,
      cache_creation: { ephemeral_5m_input_tokens: 950, ephemeral_1h_input_tokens: 0 },
      output_tokens: 120,
      inference_geo: null,
      output_tokens_details: null,
      server_tool_use: null,
      service_tier: 'standard',
      speed: null,
    };
    expect(cacheUsageFromUsage(usage)).toEqual({ inputTokens: 10_000, cacheReadTokens: 9_000, cacheWriteTokens: 950 });
    expect(cacheUsageFromUsage({ ...usage, cache_read_input_tokens: null, cache_creation_input_tokens: 0 })).toEqual({ inputTokens: 50, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it('OpenAI Chat: prompt_tokens_details.cached_tokens (and cache_write_tokens where reported)', () => {
    const usage: CompletionUsage = { prompt_tokens: 4_000, completion_tokens: 10, total_tokens: 4_010, prompt_tokens_details: { cached_tokens: 3_072, cache_write_tokens: 900 } };
    expect(cacheUsageFromUsage(usage)).toEqual({ inputTokens: 4_000, cacheReadTokens: 3_072, cacheWriteTokens: 900 });
    expect(cacheUsageFromUsage({ prompt_tokens: 12, completion_tokens: 1, total_tokens: 13 } satisfies CompletionUsage)).toEqual({ inputTokens: 12, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it('OpenAI Responses: input_tokens_details.cached_tokens', () => {
    const usage: ResponseUsage = {
      input_tokens: 2_048,
      input_tokens_details: { cached_tokens: 1_024, cache_write_tokens: 0 },
      output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 2_053,
    };
    expect(cacheUsageFromUsage(usage)).toEqual({ inputTokens: 2_048, cacheReadTokens: 1_024, cacheWriteTokens: 0 });
  });

  it('Gemini: cachedContentTokenCount, from usageMetadata or the response holding it', () => {
    const usage = { promptTokenCount: 8_000, cachedContentTokenCount: 6_000, candidatesTokenCount: 20, totalTokenCount: 8_020 } satisfies Partial<GenerateContentResponseUsageMetadata>;
    expect(cacheUsageFromUsage(usage)).toEqual({ inputTokens: 8_000, cacheReadTokens: 6_000, cacheWriteTokens: 0 });
    expect(cacheUsageFromUsage({ usageMetadata: usage })).toEqual({ inputTokens: 8_000, cacheReadTokens: 6_000, cacheWriteTokens: 0 });
  });

  it('anything else is not usage', () => {
    expect(cacheUsageFromUsage(undefined)).toBeUndefined();
    expect(cacheUsageFromUsage({ tokens: 5 })).toBeUndefined();
  });

  it('adds requests up', () => {
    expect(addCacheUsage([{ inputTokens: 10, cacheReadTokens: 4, cacheWriteTokens: 1 }, { inputTokens: 20, cacheReadTokens: 8, cacheWriteTokens: 2 }])).toEqual({ inputTokens: 30, cacheReadTokens: 12, cacheWriteTokens: 3 });
  });
});
