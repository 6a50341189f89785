/** The provider a request is counted and sent for when none is named. */
export const DEFAULT_PROVIDER = 'openai';

/** Each provider's model when no model is named: the one its requests go to by default. */
export const DEFAULT_MODELS: Readonly<Record<string, string>> = { openai: 'gpt-4o', anthropic: 'claude-sonnet-4-6', google: 'gemini-2.5-flash' };

/** The default provider's default model: the model assumed when neither is named. */
export const DEFAULT_MODEL = DEFAULT_MODELS[DEFAULT_PROVIDER] as string;

/** The default model of `provider`, else {@link DEFAULT_MODEL} (for a provider with no model of its own here). */
export function defaultModelFor(provider: string | undefined): string {
  return provider !== undefined && Object.hasOwn(DEFAULT_MODELS, provider) ? (DEFAULT_MODELS[provider] as string) : DEFAULT_MODEL;
}

/** The default models, for help text: `openai gpt-4o, anthropic claude-sonnet-4-6, …`. */
export const DEFAULT_MODELS_TEXT = Object.entries(DEFAULT_MODELS).map(([provider, model]) => `${provider} ${model}`).join(', ');
