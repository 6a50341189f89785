/**
 * What a caller knows about the provider's prompt cache, for a builder to mark the request with.
 * A builder given none builds the body as it always did: no markers are added, no key is set.
 */
export interface PromptCacheHints {
  /**
   * How many leading messages are unchanged since the previous request of this conversation:
   * the last of them ends the prefix the provider saw before. Unknown: the message before the
   * newest user message is taken.
   */
  readonly stablePrefixMessages?: number | undefined;
  /** Routes related requests to one cache (OpenAI `prompt_cache_key`); a key in the body's own options wins. */
  readonly key?: string | undefined;
}

/** The options with `prompt_cache_key` set from the hints, unless the options carry one already. */
export function withPromptCacheKey<T extends Readonly<Record<string, unknown>>>(options: T, hints: PromptCacheHints | undefined): T {
  if (hints?.key === undefined || hints.key === '' || (typeof options.prompt_cache_key === 'string' && options.prompt_cache_key !== '')) return options;
  return { ...options, prompt_cache_key: hints.key };
}
