/**
 * `sliding-context/providers`: the provider wire formats (building requests and converting them
 * back), the chat clients over the providers' SDKs, preflight counting with the providers' count
 * endpoints, reading a provider's context-overflow error, and one-shot completions for the
 * summarizer.
 */
export { type AiSdkRequest, buildAiSdkRequest } from './ai-sdk/build-ai-sdk-request.js';
export { convertFromAiSdk } from './ai-sdk/convert-from-ai-sdk.js';
export { buildAnthropicRequest } from './anthropic/build-anthropic-request.js';
export { convertFromAnthropic } from './anthropic/convert-from-anthropic.js';
export type { ConvertedRequest } from './conversion.js';
export { buildGoogleRequest } from './google/build-google-request.js';
export { convertFromGoogle } from './google/convert-from-google.js';
export { buildOpenAiChatRequest } from './openai/chat/build-openai-chat-request.js';
export { convertFromOpenAiChat } from './openai/chat/convert-from-openai-chat.js';
export { buildOpenAiResponsesRequest } from './openai/responses/build-openai-responses-request.js';
export { convertFromOpenAiResponses } from './openai/responses/convert-from-openai-responses.js';
export { type BuildInput, buildRequest, convertFrom, detectFormat, type WireFormat, wireFormats } from './wire-format.js';
export {
  createPreflightCounter,
  type PreflightClients,
  type PreflightCounterOptions,
  type PreflightPolicy,
} from './preflight-counter.js';
export { type ContextOverflow, contextOverflowOf } from './context-overflow.js';
export type { ChatClient, ChatReply } from './chat-client.js';
export { anthropicClient } from './anthropic/anthropic-chat-client.js';
export { googleClient } from './google/google-chat-client.js';
export { openAiChatClient } from './openai/openai-chat-client.js';
export { completeWithAnthropic } from './anthropic/complete-with-anthropic.js';
export { completeWithGoogle } from './google/complete-with-google.js';
export { completeWithOpenAi } from './openai/complete-with-openai.js';
// The summarizer with an SDK client in place of `complete`, as a convenience.
export { completeWithClient, llmSummarizer, type LlmClientSummarizerOptions, type LlmSummarizerOptions, type SummaryClient } from './llm-summarizer.js';
