import { SlidingContextError } from '../../errors/sliding-context-error.js';
import type { CountTokensParameters } from '@google/genai';
import type { PreflightCount } from '../_remote-count.js';
import { buildGoogleRequest } from './build-google-request.js';

/** The slice of `new GoogleGenAI({ apiKey })` that counting calls. */
export interface GoogleCountClient {
  readonly models: { countTokens(params: CountTokensParameters): PromiseLike<{ totalTokens?: number | undefined }> };
}

/**
 * Counts a request's `contents` with the Gemini countTokens endpoint. The Gemini Developer API
 * refuses a system instruction or tools there, so that part of the request keeps our estimate.
 * @see https://ai.google.dev/api/tokens
 */
export const googlePreflightCount: PreflightCount<GoogleCountClient> = (client, target, request, counter) => {
  const { contents } = buildGoogleRequest({ ...request, model: target.model });
  const body: CountTokensParameters = { model: target.model, contents };
  const hasPreamble = request.system !== undefined || (request.tools?.length ?? 0) > 0;
  return {
    body,
    ...(hasPreamble ? { estimatedPart: counter.countPreamble({ ...target, system: request.system, tools: request.tools }) } : {}),
    call: async () => {
      const { totalTokens } = await client.models.countTokens(body);
      if (totalTokens === undefined) throw new SlidingContextError('UNEXPECTED_RESPONSE', 'the count answer has no totalTokens');
      return totalTokens;
    },
  };
};
