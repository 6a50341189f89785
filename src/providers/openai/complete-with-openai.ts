import type OpenAI from 'openai';
import { z } from 'zod';
import type { Complete } from '../../condense/complete.js';
import { unexpectedAnswer } from '../_unexpected-answer.js';

/** The slice of a Chat Completions answer a summary takes; an OpenAI-compatible server may answer anything. */
const completionSchema = z.object({
  choices: z.tuple([z.object({
    message: z.object({ content: z.string().nullable(), refusal: z.string().nullish() }),
    finish_reason: z.string().nullish(),
  })], z.unknown()),
  usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number() }).partial().nullish().catch(undefined),
});

/**
 * One Chat Completions call with `model` (OpenAI, or any OpenAI-compatible server through the
 * client's `baseURL`: llama.cpp, vLLM, Ollama). Cut off means `finish_reason: length`; filtered
 * means `finish_reason: content_filter` or a `refusal`.
 * @see https://platform.openai.com/docs/api-reference/chat/object
 * @throws SlidingContextError `UNEXPECTED_RESPONSE` for an answer without `choices[0].message.content`
 */
export function completeWithOpenAi(client: Pick<OpenAI, 'chat'>, model: string): Complete {
  return async (system, user, { maxTokens, signal }) => {
    const completion: unknown = await client.chat.completions.create(
      { model, max_completion_tokens: maxTokens, messages: [{ role: 'system', content: system }, { role: 'user', content: user }] },
      { signal },
    );
    const parsed = completionSchema.safeParse(completion);
    if (!parsed.success) throw unexpectedAnswer('choices[0].message.content string', completion);
    const [choice] = parsed.data.choices;
    return {
      text: choice.message.content ?? '',
      truncated: choice.finish_reason === 'length',
      filtered: choice.finish_reason === 'content_filter' || typeof choice.message.refusal === 'string',
      inputTokens: parsed.data.usage?.prompt_tokens ?? 0,
      outputTokens: parsed.data.usage?.completion_tokens ?? 0,
    };
  };
}
