import type Anthropic from '@anthropic-ai/sdk';
import type { Complete } from '../../condense/complete.js';

/** One Messages API call with `model`; its text blocks joined. Cut off means `stop_reason: max_tokens`. */
export function completeWithAnthropic(client: Pick<Anthropic, 'messages'>, model: string): Complete {
  return async (system, user, { maxTokens, signal }) => {
    const message = await client.messages.create(
      { model, max_tokens: maxTokens, system, messages: [{ role: 'user', content: user }] },
      { signal },
    );
    return {
      text: message.content.map((block) => (block.type === 'text' ? block.text : '')).join(''),
      truncated: message.stop_reason === 'max_tokens',
      inputTokens: message.usage.input_tokens,
      outputTokens: message.usage.output_tokens,
    };
  };
}
