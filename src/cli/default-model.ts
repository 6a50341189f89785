/** The model each provider's requests go to when no `--model` names one. */
export const DEFAULT_MODELS: Readonly<Record<string, string>> = { openai: 'gpt-4o', anthropic: 'claude-sonnet-4-6', google: 'gemini-2.5-flash' };

/** The default model of `provider`, else gpt-4o (for a provider with no model of its own here). */
export function defaultModelFor(provider: string): string {
  return Object.hasOwn(DEFAULT_MODELS, provider) ? (DEFAULT_MODELS[provider] as string) : 'gpt-4o';
}
