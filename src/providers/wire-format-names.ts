/** The request shapes sliding-context reads and writes. */
export const wireFormats = ['neutral', 'openai-chat', 'openai-responses', 'anthropic', 'google', 'ai-sdk'] as const;
export type WireFormat = (typeof wireFormats)[number];

/** The format a provider's own API takes (OpenAI: Chat Completions); `neutral` for any other. */
export function providerWireFormat(provider: string): WireFormat {
  return provider === 'openai' ? 'openai-chat' : provider === 'anthropic' || provider === 'google' ? provider : 'neutral';
}
