import type { MessageCountTokensParams } from '@anthropic-ai/sdk/resources/messages';
import type { PreflightCount } from '../_remote-count.js';
import { buildAnthropicRequest } from './build-anthropic-request.js';

/** The slice of `new Anthropic()` that counting calls. */
export interface AnthropicCountClient {
  readonly messages: { countTokens(body: MessageCountTokensParams): PromiseLike<{ input_tokens: number }> };
}

/**
 * Counts a request with the Messages count-tokens endpoint.
 * @see https://docs.anthropic.com/en/api/messages-count-tokens
 */
export const anthropicPreflightCount: PreflightCount<AnthropicCountClient> = (client, target, request) => {
  const { model, messages, system, tools } = buildAnthropicRequest({ ...request, model: target.model });
  const body: MessageCountTokensParams = { model, messages, ...(system ? { system } : {}), ...(tools ? { tools } : {}) };
  return { body, call: async () => (await client.messages.countTokens(body)).input_tokens };
};
