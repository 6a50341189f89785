import type OpenAI from 'openai';
import type { Complete } from '../../condense/complete.js';

/**
 * One Chat Completions call with `model` (OpenAI, or any OpenAI-compatible server through the
 * client's `baseURL`: llama.cpp, vLLM, Ollama). Cut off means `finish_reason: length`.
 */
export function completeWithOpenAi(client: Pick<OpenAI, 'chat'>, model: string): Complete {
  return async (system, user, { maxTokens, signal }) => {
    const completion = await client.chat.completions.create(
      { model, max_completion_tokens: maxTokens, messages: [{ role: 'system', content: system }, { role: 'user', content: user }] },
      { signal },
    );
    const choice = completion.choices[0];
    return {
      text: choice?.message.content ?? '',
      truncated: choice?.finish_reason === 'length',
      inputTokens: completion.usage?.prompt_tokens ?? 0,
      outputTokens: completion.usage?.completion_tokens ?? 0,
    };
  };
}
