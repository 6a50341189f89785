import { hashText } from '../tokens/_hash-text.js';
import type { CountableRequest, CountTarget, TokenCount, TokenCounter } from '../tokens/token-counter.js';
import type { AnthropicCountClient } from './anthropic/anthropic-preflight-count.js';
import type { GoogleCountClient } from './google/google-preflight-count.js';
import type { OpenAiCountClient } from './openai/openai-preflight-count.js';
import { isProviderName, preflightCountFor } from './provider-table.js';

/** When to ask the provider: never (the default), always, or only near the budget. */
export type PreflightPolicy = 'never' | 'always' | 'near-limit';

/**
 * The slices of the official SDK clients that pre-flight counting calls. Pass the real clients:
 * `new OpenAI()`, `new Anthropic()`, `new GoogleGenAI({ apiKey })`.
 */
export interface PreflightClients {
  readonly openai?: OpenAiCountClient | undefined;
  readonly anthropic?: AnthropicCountClient | undefined;
  readonly google?: GoogleCountClient | undefined;
}

/** Options of {@link createPreflightCounter}. */
export interface PreflightCounterOptions {
  readonly counter: TokenCounter;
  readonly clients: PreflightClients;
  readonly policy?: PreflightPolicy | undefined;
  /** With `near-limit`: ask when the estimate is within this fraction of the budget (default 0.1). */
  readonly marginFraction?: number | undefined;
  readonly onWarning?: ((message: string) => void) | undefined;
}

/**
 * Counts with the providers' own count-tokens endpoints when the policy says so, through the SDK
 * clients passed in, and caches each answer by a hash of the request body. Any error, a rate
 * limit included, falls back to the offline estimate with a warning.
 * @see https://platform.openai.com/docs/api-reference/responses/input-tokens
 * @see https://docs.anthropic.com/en/api/messages-count-tokens
 * @see https://ai.google.dev/api/tokens
 */
export function createPreflightCounter(options: PreflightCounterOptions) {
  const policy = options.policy ?? 'never';
  const margin = options.marginFraction ?? 0.1;
  const cache = new Map<string, number>();
  /** The provider's count call, when the provider has one and its client was passed. */
  const remoteFor = (target: CountTarget, request: CountableRequest) => {
    const { provider } = target;
    if (!isProviderName(provider)) return undefined;
    const client = options.clients[provider];
    return client ? preflightCountFor(provider, client, target, request, options.counter) : undefined;
  };

  return {
    /** Counts a request, asking the provider when the policy calls for it. */
    async count(input: CountTarget & { readonly request: CountableRequest; readonly budgetTokens?: number | undefined }): Promise<TokenCount> {
      const estimate = options.counter.count(input);
      const budget = input.budgetTokens ?? 0;
      const ask =
        policy === 'always' ||
        (policy === 'near-limit' && budget > 0 && Math.abs(estimate.tokens - budget) <= budget * margin);
      if (!ask || estimate.exact) return estimate;
      const remote = remoteFor(input, input.request);
      if (!remote) return estimate;
      const key = `${input.provider}|${hashText(JSON.stringify(remote.body)).toString(36)}`;
      const method = remote.estimatedPart ? `${input.provider} count-tokens API+${remote.estimatedPart.method}` : `${input.provider} count-tokens API`;
      const answer = (tokens: number): TokenCount => ({ tokens: tokens + (remote.estimatedPart?.tokens ?? 0), exact: !remote.estimatedPart, method });
      const cached = cache.get(key);
      if (cached !== undefined) return answer(cached);
      try {
        const tokens = await remote.call();
        cache.set(key, tokens);
        return answer(tokens);
      } catch (error) {
        const status = typeof error === 'object' && error !== null && 'status' in error ? String(error.status) : undefined;
        const reason = status === '429' ? 'rate limited' : error instanceof Error ? error.message : String(error);
        options.onWarning?.(`The ${input.provider} count-tokens API failed (${reason}); using the offline estimate.`);
        return estimate;
      }
    },
  };
}
