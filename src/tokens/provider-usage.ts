import { z } from 'zod';

const anthropicUsage = z.object({
  input_tokens: z.number(),
  cache_read_input_tokens: z.number().nullish(),
  cache_creation_input_tokens: z.number().nullish(),
});
const openAiChatUsage = z.object({ prompt_tokens: z.number() });
const openAiResponsesUsage = z.object({ input_tokens: z.number() });
const geminiUsage = z.object({ promptTokenCount: z.number() });

/**
 * The input tokens a provider reports having read, from its usage object:
 * Anthropic `input_tokens + cache_read_input_tokens + cache_creation_input_tokens`, OpenAI
 * `prompt_tokens` (Chat) or `input_tokens` (Responses), Gemini `promptTokenCount`.
 * Returns undefined for anything else. Cached tokens are still tokens in the window.
 */
export function inputTokensFromUsage(usage: unknown): number | undefined {
  const anthropic = anthropicUsage.safeParse(usage);
  if (anthropic.success && ('cache_read_input_tokens' in anthropic.data || 'cache_creation_input_tokens' in anthropic.data)) {
    const { input_tokens, cache_read_input_tokens, cache_creation_input_tokens } = anthropic.data;
    return input_tokens + (cache_read_input_tokens ?? 0) + (cache_creation_input_tokens ?? 0);
  }
  const chat = openAiChatUsage.safeParse(usage);
  if (chat.success) return chat.data.prompt_tokens;
  const responses = openAiResponsesUsage.safeParse(usage);
  if (responses.success) return responses.data.input_tokens;
  const gemini = geminiUsage.safeParse(usage);
  if (gemini.success) return gemini.data.promptTokenCount;
  return undefined;
}
