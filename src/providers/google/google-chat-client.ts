import type { GenerateContentParameters, GoogleGenAI } from '@google/genai';
import type { ModelMessage } from '../../message/message.js';
import { assistantOf } from '../_assistant-of.js';
import type { ChatClient } from '../chat-client.js';
import { convertFromGoogle } from './convert-from-google.js';

/** `generateContentStream` of the Gemini API. */
export function googleClient(client: Pick<GoogleGenAI, 'models'>): ChatClient {
  return {
    async stream(request, onText, signal) {
      // The body is already `generateContentStream`'s parameters (see buildGoogleRequest).
      const body = request as GenerateContentParameters;
      const stream = await client.models.generateContentStream({ ...body, config: { ...body.config, ...(signal ? { abortSignal: signal } : {}) } });
      const parts: Record<string, unknown>[] = [];
      let usage: unknown;
      let stopReason: string | undefined;
      for await (const chunk of stream) {
        if (chunk.usageMetadata) usage = chunk.usageMetadata;
        const candidate = chunk.candidates?.[0];
        if (candidate?.finishReason) stopReason = candidate.finishReason;
        for (const part of candidate?.content?.parts ?? []) {
          if (typeof part.text === 'string' && part.thought !== true) onText(part.text);
          parts.push({ ...part });
        }
      }
      const messages = convertFromGoogle({ contents: [{ role: 'model', parts }] }).messages as ModelMessage[];
      return { message: assistantOf(messages), usage, stopReason };
    },
  };
}
