import { isRecord } from '../../message/is-record.js';

/**
 * The AI SDK's usage of a call (`inputTokens` as `{ total, noCache, cacheRead, cacheWrite }`, or
 * a number in older versions) in a shape `inputTokensFromUsage` reads: Anthropic's when the cache
 * split is known, else OpenAI's `prompt_tokens`. Undefined when the input tokens are not reported.
 */
export function usageOfAiSdk(usage: unknown): Record<string, number> | undefined {
  if (!isRecord(usage)) return undefined;
  const input = usage.inputTokens;
  if (typeof input === 'number') return { prompt_tokens: input };
  if (!isRecord(input)) return undefined;
  const number = (value: unknown) => (typeof value === 'number' ? value : undefined);
  const total = number(input.total);
  const noCache = number(input.noCache);
  const cacheRead = number(input.cacheRead);
  const cacheWrite = number(input.cacheWrite);
  if (noCache !== undefined && (cacheRead !== undefined || cacheWrite !== undefined)) {
    return { input_tokens: noCache, cache_read_input_tokens: cacheRead ?? 0, cache_creation_input_tokens: cacheWrite ?? 0 };
  }
  return total === undefined ? undefined : { prompt_tokens: total };
}
