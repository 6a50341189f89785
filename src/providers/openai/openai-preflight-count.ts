import type { InputTokenCountParams } from 'openai/resources/responses/input-tokens';
import type { PreflightCount } from '../_remote-count.js';
import { buildOpenAiResponsesRequest } from './responses/build-openai-responses-request.js';

/** The slice of `new OpenAI()` that counting calls. */
export interface OpenAiCountClient {
  readonly responses: { readonly inputTokens: { count(body: InputTokenCountParams): PromiseLike<{ input_tokens: number }> } };
}

/**
 * Counts a request with the Responses input-tokens endpoint, the request built as a Responses body.
 * @see https://platform.openai.com/docs/api-reference/responses/input-tokens
 */
export const openAiPreflightCount: PreflightCount<OpenAiCountClient> = (client, target, request) => {
  const { input, instructions, tools } = buildOpenAiResponsesRequest({ ...request, model: target.model });
  const body: InputTokenCountParams = { model: target.model, input, ...(instructions ? { instructions } : {}), ...(tools ? { tools } : {}) };
  return { body, call: async () => (await client.responses.inputTokens.count(body)).input_tokens };
};
