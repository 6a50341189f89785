import { z } from 'zod';
import { inputTokensFromUsage } from './provider-usage.js';

/** What a provider's prompt cache did for one request, as its usage reports it. */
export interface CacheUsage {
  /** Every input token of the request: cached, written and plain. */
  readonly inputTokens: number;
  /** Tokens read from the cache. */
  readonly cacheReadTokens: number;
  /** Tokens written to the cache (0 where the provider does not report writes). */
  readonly cacheWriteTokens: number;
}

const count = z.number().nonnegative().nullish();
const anthropic = z.object({ input_tokens: z.number(), cache_read_input_tokens: count, cache_creation_input_tokens: count });
const details = z.object({ cached_tokens: count, cache_write_tokens: count }).nullish();
const openAiChat = z.object({ prompt_tokens: z.number(), prompt_tokens_details: details });
const openAiResponses = z.object({ input_tokens: z.number(), input_tokens_details: details });
const gemini = z.object({ promptTokenCount: z.number(), cachedContentTokenCount: count });

/**
 * The cache figures of a provider's usage object: Anthropic `cache_read_input_tokens` and
 * `cache_creation_input_tokens`; OpenAI `prompt_tokens_details` (Chat) or `input_tokens_details`
 * (Responses) `cached_tokens` and `cache_write_tokens`; Gemini `cachedContentTokenCount` (the
 * `usageMetadata`, or a response that holds it). Undefined for anything else.
 */
export function cacheUsageFromUsage(usage: unknown): CacheUsage | undefined {
  if (typeof usage === 'object' && usage !== null && 'usageMetadata' in usage) return cacheUsageFromUsage(usage.usageMetadata);
  const inputTokens = inputTokensFromUsage(usage);
  if (inputTokens === undefined) return undefined;
  const fromAnthropic = anthropic.safeParse(usage);
  if (fromAnthropic.success && (fromAnthropic.data.cache_read_input_tokens != null || fromAnthropic.data.cache_creation_input_tokens != null)) {
    const { cache_read_input_tokens: read, cache_creation_input_tokens: written } = fromAnthropic.data;
    return { inputTokens, cacheReadTokens: read ?? 0, cacheWriteTokens: written ?? 0 };
  }
  const chat = openAiChat.safeParse(usage);
  const responses = openAiResponses.safeParse(usage);
  const detail = chat.success ? chat.data.prompt_tokens_details : responses.success ? responses.data.input_tokens_details : undefined;
  const fromGemini = gemini.safeParse(usage);
  const read = detail?.cached_tokens ?? (fromGemini.success ? fromGemini.data.cachedContentTokenCount : undefined) ?? 0;
  return { inputTokens, cacheReadTokens: read, cacheWriteTokens: detail?.cache_write_tokens ?? 0 };
}

/** Requests' cache figures added up. */
export function addCacheUsage(all: readonly CacheUsage[]): CacheUsage {
  return all.reduce(
    (sum, usage) => ({
      inputTokens: sum.inputTokens + usage.inputTokens,
      cacheReadTokens: sum.cacheReadTokens + usage.cacheReadTokens,
      cacheWriteTokens: sum.cacheWriteTokens + usage.cacheWriteTokens,
    }),
    { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
  );
}
