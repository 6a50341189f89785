import type Anthropic from '@anthropic-ai/sdk';
import type { GoogleGenAI } from '@google/genai';
import type OpenAI from 'openai';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import type { CliIo } from './cli-io.js';

/** An official SDK client, tagged with its provider. */
export type ProviderSdk =
  | { readonly provider: 'openai'; readonly client: OpenAI }
  | { readonly provider: 'anthropic'; readonly client: Anthropic }
  | { readonly provider: 'google'; readonly client: GoogleGenAI };

/** Where each provider's key is read from. */
export const API_KEY_VARIABLES = { openai: 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY', google: 'GEMINI_API_KEY' } as const;

/**
 * The provider's official SDK client, its key from the environment; with a base URL (a local
 * OpenAI-compatible server) no key is needed; an empty variable is unset. The SDK is loaded only here.
 * @throws SlidingContextError `MISSING_API_KEY`, naming the variable to set
 */
export async function providerSdk<Provider extends ProviderSdk['provider']>(
  provider: Provider,
  io: Pick<CliIo, 'env'>,
  baseUrl?: string,
): Promise<Extract<ProviderSdk, { provider: Provider }>> {
  return (await makeSdk(provider, io, baseUrl)) as Extract<ProviderSdk, { provider: Provider }>;
}

async function makeSdk(provider: ProviderSdk['provider'], io: Pick<CliIo, 'env'>, baseUrl: string | undefined): Promise<ProviderSdk> {
  const variable = API_KEY_VARIABLES[provider];
  // An empty variable counts as unset, as every setting's does (`OPENAI_API_KEY= … --base-url …`).
  const apiKey = io.env[variable] || (baseUrl ? 'not-needed' : undefined);
  if (!apiKey) throw new SlidingContextError('MISSING_API_KEY', `${variable} is not set: export it, or pass --base-url for a local OpenAI-compatible server.`);
  if (provider === 'anthropic') {
    const { default: Anthropic } = await import('@anthropic-ai/sdk');
    return { provider, client: new Anthropic({ apiKey, baseURL: baseUrl, maxRetries: 1 }) };
  }
  if (provider === 'google') {
    const { GoogleGenAI } = await import('@google/genai');
    return { provider, client: new GoogleGenAI({ apiKey, ...(baseUrl ? { httpOptions: { baseUrl } } : {}) }) };
  }
  const { default: OpenAI } = await import('openai');
  return { provider, client: new OpenAI({ apiKey, baseURL: baseUrl, maxRetries: 1 }) };
}
