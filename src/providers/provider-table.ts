import type Anthropic from '@anthropic-ai/sdk';
import type { GoogleGenAI } from '@google/genai';
import type OpenAI from 'openai';
import type { Complete } from '../condense/complete.js';
import type { CountableRequest, CountTarget, TokenCounter } from '../tokens/token-counter.js';
import type { ContextOverflowWording } from './_context-overflow-wording.js';
import type { PreflightCount, RemoteCount } from './_remote-count.js';
import { anthropicClient } from './anthropic/anthropic-chat-client.js';
import { anthropicContextOverflow } from './anthropic/anthropic-context-overflow.js';
import { type AnthropicCountClient, anthropicPreflightCount } from './anthropic/anthropic-preflight-count.js';
import { completeWithAnthropic } from './anthropic/complete-with-anthropic.js';
import type { ChatClient } from './chat-client.js';
import { completeWithGoogle } from './google/complete-with-google.js';
import { googleClient } from './google/google-chat-client.js';
import { googleContextOverflow } from './google/google-context-overflow.js';
import { type GoogleCountClient, googlePreflightCount } from './google/google-preflight-count.js';
import { completeWithOpenAi } from './openai/complete-with-openai.js';
import { openAiChatClient } from './openai/openai-chat-client.js';
import { openAiContextOverflow } from './openai/openai-context-overflow.js';
import { type OpenAiCountClient, openAiPreflightCount } from './openai/openai-preflight-count.js';

/** The slices of each provider's official SDK client that its functions take. */
export interface ProviderClients {
  readonly openai: { readonly sdk: Pick<OpenAI, 'chat'>; readonly count: OpenAiCountClient };
  readonly anthropic: { readonly sdk: Pick<Anthropic, 'messages'>; readonly count: AnthropicCountClient };
  readonly google: { readonly sdk: Pick<GoogleGenAI, 'models'>; readonly count: GoogleCountClient };
}

/** A provider with a folder of its own. */
export type ProviderName = keyof ProviderClients;

/** An official SDK client, tagged with its provider. */
export type ProviderClient = { readonly [Name in ProviderName]: { readonly provider: Name; readonly client: ProviderClients[Name]['sdk'] } }[ProviderName];

/** What each provider's folder supplies beside its wire formats. */
interface ProviderFunctions<Clients extends ProviderClients[ProviderName]> {
  readonly chatClient: (client: Clients['sdk']) => ChatClient;
  readonly complete: (client: Clients['sdk'], model: string) => Complete;
  readonly preflightCount: PreflightCount<Clients['count']>;
  readonly contextOverflow: ContextOverflowWording;
}

/** Each provider's functions, in the order their overflow wordings are tried. */
const providerTable: { readonly [Name in ProviderName]: ProviderFunctions<ProviderClients[Name]> } = {
  anthropic: {
    chatClient: anthropicClient,
    complete: completeWithAnthropic,
    preflightCount: anthropicPreflightCount,
    contextOverflow: anthropicContextOverflow,
  },
  google: {
    chatClient: googleClient,
    complete: completeWithGoogle,
    preflightCount: googlePreflightCount,
    contextOverflow: googleContextOverflow,
  },
  openai: {
    chatClient: openAiChatClient,
    complete: completeWithOpenAi,
    preflightCount: openAiPreflightCount,
    contextOverflow: openAiContextOverflow,
  },
};

/** True for a provider with a folder of its own. */
export function isProviderName(name: string): name is ProviderName {
  return Object.hasOwn(providerTable, name);
}

/** The provider's streaming chat client over its SDK client (OpenAI: Chat Completions, and any compatible server). */
export function chatClientFor<Name extends ProviderName>(provider: Name, client: ProviderClients[Name]['sdk']): ChatClient {
  return providerTable[provider].chatClient(client);
}

/** The provider's one-shot completion with `model`, over its SDK client: what the LLM summarizer takes. */
export function completeFor<Name extends ProviderName>(provider: Name, client: ProviderClients[Name]['sdk'], model: string): Complete {
  return providerTable[provider].complete(client, model);
}

/** The provider's count-tokens call for a request, over the slice of its SDK client that counting takes. */
export function preflightCountFor<Name extends ProviderName>(
  provider: Name,
  client: ProviderClients[Name]['count'],
  target: CountTarget,
  request: CountableRequest,
  counter: TokenCounter,
): RemoteCount {
  return providerTable[provider].preflightCount(client, target, request, counter);
}

/** Every provider's "request too long" wording. */
export const contextOverflowWordings: readonly ContextOverflowWording[] = Object.values(providerTable).map((functions) => functions.contextOverflow);
