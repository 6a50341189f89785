import type { MessageCountTokensParams } from '@anthropic-ai/sdk/resources/messages';
import type { CountTokensParameters } from '@google/genai';
import type { InputTokenCountParams } from 'openai/resources/responses/input-tokens';
import { hashText } from '../tokens/_hash-text.js';
import type { CountableRequest, CountTarget, TokenCount, TokenCounter } from '../tokens/token-counter.js';
import { buildAnthropicRequest } from './anthropic/build-anthropic-request.js';
import { buildGoogleRequest } from './google/build-google-request.js';
import { buildOpenAiResponsesRequest } from './openai-responses/build-openai-responses-request.js';
import { SlidingContextError } from '../errors/sliding-context-error.js';

/** When to ask the provider: never (the default), always, or only near the budget. */
export type PreflightPolicy = 'never' | 'always' | 'near-limit';

/**
 * The slices of the official SDK clients that pre-flight counting calls. Pass the real clients:
 * `new OpenAI()`, `new Anthropic()`, `new GoogleGenAI({ apiKey })`.
 */
export interface PreflightClients {
  readonly openai?: { readonly responses: { readonly inputTokens: { count(body: InputTokenCountParams): PromiseLike<{ input_tokens: number }> } } } | undefined;
  readonly anthropic?: { readonly messages: { countTokens(body: MessageCountTokensParams): PromiseLike<{ input_tokens: number }> } } | undefined;
  readonly google?: { readonly models: { countTokens(params: CountTokensParameters): PromiseLike<{ totalTokens?: number | undefined }> } } | undefined;
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

/** A provider call that counts a request, and the part of the request it leaves to our estimate. */
type RemoteCount = (
  target: CountTarget,
  request: CountableRequest,
) => { body: unknown; call: () => PromiseLike<number>; estimatedPart?: TokenCount } | undefined;

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
  const remotes: Readonly<Record<string, RemoteCount>> = {
    openai: (target, request) => {
      const client = options.clients.openai;
      if (!client) return undefined;
      const { input, instructions, tools } = buildOpenAiResponsesRequest({ ...request, model: target.model });
      const body: InputTokenCountParams = { model: target.model, input, ...(instructions ? { instructions } : {}), ...(tools ? { tools } : {}) };
      return { body, call: async () => (await client.responses.inputTokens.count(body)).input_tokens };
    },
    anthropic: (target, request) => {
      const client = options.clients.anthropic;
      if (!client) return undefined;
      const { model, messages, system, tools } = buildAnthropicRequest({ ...request, model: target.model });
      const body: MessageCountTokensParams = { model, messages, ...(system ? { system } : {}), ...(tools ? { tools } : {}) };
      return { body, call: async () => (await client.messages.countTokens(body)).input_tokens };
    },
    google: (target, request) => {
      const client = options.clients.google;
      if (!client) return undefined;
      // The Gemini Developer API counts `contents` only: a system instruction or tools are refused,
      // so that part of the request keeps our estimate.
      const { contents } = buildGoogleRequest({ ...request, model: target.model });
      const body: CountTokensParameters = { model: target.model, contents };
      const hasPreamble = request.system !== undefined || (request.tools?.length ?? 0) > 0;
      return {
        body,
        ...(hasPreamble ? { estimatedPart: options.counter.countPreamble({ ...target, system: request.system, tools: request.tools }) } : {}),
        call: async () => {
          const { totalTokens } = await client.models.countTokens(body);
          if (totalTokens === undefined) throw new SlidingContextError('UNEXPECTED_RESPONSE', 'the count answer has no totalTokens');
          return totalTokens;
        },
      };
    },
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
      const remote = remotes[input.provider]?.(input, input.request);
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
