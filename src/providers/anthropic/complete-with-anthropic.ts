import type Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';
import type { Complete } from '../../condense/complete.js';
import { unexpectedAnswer } from '../_unexpected-answer.js';

/** The slice of a Messages API answer a summary takes: content blocks, a text block's text a string. */
const messageSchema = z.object({
  content: z.array(z.union([z.object({ type: z.literal('text'), text: z.string() }), z.object({ type: z.string().refine((type) => type !== 'text') })])),
  stop_reason: z.string().nullish(),
  usage: z.object({ input_tokens: z.number(), output_tokens: z.number() }).partial().nullish().catch(undefined),
});

/**
 * One Messages API call with `model`; its text blocks joined. Cut off means `stop_reason: max_tokens`;
 * filtered means `stop_reason: refusal`.
 * @see https://docs.anthropic.com/en/api/handling-stop-reasons
 * @throws SlidingContextError `UNEXPECTED_RESPONSE` for an answer without a `content` array of blocks
 */
export function completeWithAnthropic(client: Pick<Anthropic, 'messages'>, model: string): Complete {
  return async (system, user, { maxTokens, signal }) => {
    const message: unknown = await client.messages.create(
      { model, max_tokens: maxTokens, system, messages: [{ role: 'user', content: user }] },
      { signal },
    );
    const parsed = messageSchema.safeParse(message);
    if (!parsed.success) throw unexpectedAnswer('content array of blocks (a text block with a text string)', message);
    return {
      text: parsed.data.content.map((block) => ('text' in block ? block.text : '')).join(''),
      truncated: parsed.data.stop_reason === 'max_tokens',
      filtered: parsed.data.stop_reason === 'refusal',
      inputTokens: parsed.data.usage?.input_tokens ?? 0,
      outputTokens: parsed.data.usage?.output_tokens ?? 0,
    };
  };
}
