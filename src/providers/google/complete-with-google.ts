import type { GoogleGenAI } from '@google/genai';
import { z } from 'zod';
import type { Complete } from '../../condense/complete.js';
import { SlidingContextError } from '../../errors/sliding-context-error.js';
import { unexpectedAnswer } from '../_unexpected-answer.js';

/** The slice of a `generateContent` answer a summary takes; no candidate at all is a blocked prompt. */
const responseSchema = z.object({
  candidates: z.array(z.object({
    content: z.object({ parts: z.array(z.object({ text: z.string().optional(), thought: z.boolean().nullish() })).optional() }).nullish(),
    finishReason: z.string().nullish(),
  })).nullish(),
  promptFeedback: z.object({ blockReason: z.string().nullish() }).nullish().catch(undefined),
  usageMetadata: z.object({ promptTokenCount: z.number(), candidatesTokenCount: z.number(), thoughtsTokenCount: z.number() })
    .partial().nullish().catch(undefined),
});

/** Finish reasons of an answer that ended where it should, or at its output cap; any other one stopped it short. */
const FINISHED = new Set(['STOP', 'MAX_TOKENS', 'FINISH_REASON_UNSPECIFIED']);

/** The SDK parses the body itself: a page that is not JSON, or a bare JSON value, fails inside it. */
function isUnparsableBody(error: unknown): boolean {
  return error instanceof SyntaxError || (error instanceof TypeError && /^Cannot create property '\w+' on (string|number|boolean)/.test(error.message));
}

/**
 * One `generateContent` call of the Gemini API with `model`; its text parts (thoughts left out)
 * joined. Cut off means finish reason `MAX_TOKENS`; filtered means a blocked prompt or any other
 * reason than `STOP` (`SAFETY`, `RECITATION`, `BLOCKLIST`, `PROHIBITED_CONTENT`, `SPII`, …).
 * Thinking tokens count as output.
 * @see https://ai.google.dev/api/generate-content#FinishReason
 * @throws SlidingContextError `UNEXPECTED_RESPONSE` for an answer that is not a `GenerateContentResponse`
 */
export function completeWithGoogle(client: Pick<GoogleGenAI, 'models'>, model: string): Complete {
  return async (system, user, { maxTokens, signal }) => {
    let response: unknown;
    try {
      response = await client.models.generateContent({
        model,
        contents: [{ role: 'user', parts: [{ text: user }] }],
        config: { systemInstruction: system, maxOutputTokens: maxTokens, ...(signal ? { abortSignal: signal } : {}) },
      });
    } catch (error) {
      if (!isUnparsableBody(error)) throw error;
      throw new SlidingContextError('UNEXPECTED_RESPONSE', 'the answer is not a JSON object with candidates; check that the base URL points at the provider\'s API.', { cause: error });
    }
    const parsed = responseSchema.safeParse(response);
    if (!parsed.success) throw unexpectedAnswer('candidates[0].content.parts array of text parts', response);
    const candidate = parsed.data.candidates?.[0];
    const parts = candidate?.content?.parts ?? [];
    const usage = parsed.data.usageMetadata;
    const finishReason = candidate?.finishReason ?? undefined;
    return {
      text: parts.map((part) => (typeof part.text === 'string' && part.thought !== true ? part.text : '')).join(''),
      truncated: finishReason === 'MAX_TOKENS',
      filtered: typeof parsed.data.promptFeedback?.blockReason === 'string' || (finishReason !== undefined && !FINISHED.has(finishReason)),
      inputTokens: usage?.promptTokenCount ?? 0,
      outputTokens: (usage?.candidatesTokenCount ?? 0) + (usage?.thoughtsTokenCount ?? 0),
    };
  };
}
