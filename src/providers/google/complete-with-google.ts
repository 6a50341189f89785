import type { GoogleGenAI } from '@google/genai';
import type { Complete } from '../../condense/complete.js';

/**
 * One `generateContent` call of the Gemini API with `model`; its text parts (thoughts left out)
 * joined. Cut off means finish reason `MAX_TOKENS`; thinking tokens count as output.
 * @see https://ai.google.dev/api/generate-content
 */
export function completeWithGoogle(client: Pick<GoogleGenAI, 'models'>, model: string): Complete {
  return async (system, user, { maxTokens, signal }) => {
    const response = await client.models.generateContent({
      model,
      contents: [{ role: 'user', parts: [{ text: user }] }],
      config: { systemInstruction: system, maxOutputTokens: maxTokens, ...(signal ? { abortSignal: signal } : {}) },
    });
    const candidate = response.candidates?.[0];
    const parts = candidate?.content?.parts ?? [];
    const usage = response.usageMetadata;
    // The SDK's enum is a runtime value; its string is compared instead, so the SDK is not loaded here.
    const finishReason: string | undefined = candidate?.finishReason;
    return {
      text: parts.map((part) => (typeof part.text === 'string' && part.thought !== true ? part.text : '')).join(''),
      truncated: finishReason === 'MAX_TOKENS',
      inputTokens: usage?.promptTokenCount ?? 0,
      outputTokens: (usage?.candidatesTokenCount ?? 0) + (usage?.thoughtsTokenCount ?? 0),
    };
  };
}
