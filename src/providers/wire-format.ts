import { SlidingContextError } from '../errors/sliding-context-error.js';
import type { ModelMessage, ToolDefinition } from '../message/message.js';
import { isRecord } from '../message/is-record.js';
import { parseMessages, parseToolDefinitions } from '../message/parse-messages.js';
import { buildAiSdkRequest } from './ai-sdk/build-ai-sdk-request.js';
import { convertFromAiSdk } from './ai-sdk/convert-from-ai-sdk.js';
import { buildAnthropicRequest } from './anthropic/build-anthropic-request.js';
import { convertFromAnthropic } from './anthropic/convert-from-anthropic.js';
import { type ConvertedRequest, conversionError } from './conversion.js';
import { buildGoogleRequest } from './google/build-google-request.js';
import { convertFromGoogle } from './google/convert-from-google.js';
import { buildOpenAiChatRequest } from './openai/chat/build-openai-chat-request.js';
import { convertFromOpenAiChat } from './openai/chat/convert-from-openai-chat.js';
import { buildOpenAiResponsesRequest } from './openai/responses/build-openai-responses-request.js';
import { convertFromOpenAiResponses } from './openai/responses/convert-from-openai-responses.js';

import type { ConvertedMessages } from './converted-messages.js';
import type { PromptCacheHints } from './prompt-cache-hints.js';
import type { WireFormat } from './wire-format-names.js';

export type { PromptCacheHints } from './prompt-cache-hints.js';
export { providerWireFormat, type WireFormat, wireFormats } from './wire-format-names.js';

/** What a builder takes: the window's content plus the options the body came with. */
export interface BuildInput {
  readonly model: string;
  readonly system?: string | undefined;
  readonly tools?: readonly ToolDefinition[] | undefined;
  readonly messages: readonly ModelMessage[];
  readonly options?: Readonly<Record<string, unknown>> | undefined;
  /** What the caller knows of the prompt cache: with it, Anthropic bodies mark their stable prefix and OpenAI bodies carry a cache key. */
  readonly cache?: PromptCacheHints | undefined;
  /**
   * Each message's elements converted once and kept, frozen (see {@link ConvertedMessages}): by the
   * OpenAI Chat, Responses and Anthropic builders (an Anthropic message that joins two turns, or
   * carries a cache marker, is a copy made for the body). Gemini's converts every message each time.
   */
  readonly converted?: ConvertedMessages | undefined;
}

function convertFromNeutral(body: unknown): ConvertedRequest {
  if (Array.isArray(body)) return { messages: parseMessages(body), options: {} };
  if (!isRecord(body) || !Array.isArray(body.messages)) throw conversionError('body', 'expected an array of messages or { system?, tools?, messages }', 'INVALID_REQUEST_BODY');
  if (body.system !== undefined && typeof body.system !== 'string') throw conversionError('system', 'expected string', 'INVALID_REQUEST_BODY');
  return {
    ...(typeof body.system === 'string' ? { system: body.system } : {}),
    ...(body.tools === undefined ? {} : { tools: parseToolDefinitions(body.tools) }),
    messages: parseMessages(body.messages),
    options: {},
  };
}

const converters: Record<WireFormat, (body: unknown) => ConvertedRequest> = {
  'neutral': convertFromNeutral,
  'openai-chat': convertFromOpenAiChat,
  'openai-responses': convertFromOpenAiResponses,
  'anthropic': convertFromAnthropic,
  'google': convertFromGoogle,
  'ai-sdk': convertFromAiSdk,
};

const builders: Record<WireFormat, (input: BuildInput) => unknown> = {
  'neutral': ({ system, tools, messages }) => ({ ...(system === undefined ? {} : { system }), ...(tools ? { tools } : {}), messages }),
  'openai-chat': buildOpenAiChatRequest,
  'openai-responses': buildOpenAiResponsesRequest,
  'anthropic': buildAnthropicRequest,
  'google': buildGoogleRequest,
  'ai-sdk': buildAiSdkRequest,
};

/** The field of a body that holds its conversation, where a bare array is taken to be it. */
const conversationField: Readonly<Record<WireFormat, string | undefined>> = {
  'neutral': undefined,
  'openai-chat': 'messages',
  'openai-responses': 'input',
  'anthropic': 'messages',
  'google': 'contents',
  'ai-sdk': undefined,
};

/**
 * Takes a body in `format` apart into the neutral model. A bare array is the body's message list
 * (`messages`, `input` or `contents`): people save the conversation without the request around it.
 */
export function convertFrom(format: WireFormat, body: unknown): ConvertedRequest {
  const field = conversationField[format];
  return converters[format](Array.isArray(body) && field !== undefined ? { [field]: body } : body);
}

/** Builds a body in `format` from neutral content, restoring the options it came with. */
export function buildRequest(format: WireFormat, input: BuildInput): unknown {
  return builders[format](input);
}

/** Provider part types that give a format away. */
const partHints: readonly (readonly [RegExp, WireFormat])[] = [
  [/^(tool_use|tool_result|thinking|redacted_thinking)$/, 'anthropic'],
  [/^(input_text|output_text|input_image|input_file)$/, 'openai-responses'],
  [/^(image_url|input_audio)$/, 'openai-chat'],
  [/^(tool-call|tool-result|reasoning)$/, 'neutral'],
];

function hintOf(value: unknown): WireFormat | undefined {
  if (Array.isArray(value)) {
    for (const entry of value) {
      const hint = hintOf(entry);
      if (hint) return hint;
    }
    return undefined;
  }
  if (!isRecord(value)) return undefined;
  if (typeof value.type === 'string') {
    if (/^(function_call|function_call_output|reasoning|message)$/.test(value.type) && ('call_id' in value || 'summary' in value || 'role' in value)) {
      if (value.type !== 'reasoning' || 'summary' in value) return 'openai-responses';
    }
    const hint = partHints.find(([pattern]) => pattern.test(String(value.type)));
    if (hint) return hint[1];
  }
  if ('tool_calls' in value || 'tool_call_id' in value || value.role === 'developer') return 'openai-chat';
  if ('functionCall' in value || 'functionResponse' in value || 'inlineData' in value) return 'google';
  return hintOf(value.content);
}

/**
 * Tells which format a body is in: `contents` is Gemini, `input` Responses, a `max_tokens` or
 * top-level `system` beside Anthropic-only blocks Anthropic, and so on; message arrays are read
 * for telling part types. Plain `{ role, content: string }` messages read as neutral.
 * @throws SlidingContextError `UNKNOWN_FORMAT` when nothing fits.
 */
export function detectFormat(body: unknown): WireFormat {
  if (isRecord(body) && Array.isArray(body.contents)) return 'google';
  if (isRecord(body) && 'input' in body && !('messages' in body)) return 'openai-responses';
  const messages = Array.isArray(body) ? body : isRecord(body) ? body.messages : undefined;
  if (!Array.isArray(messages)) {
    throw new SlidingContextError('UNKNOWN_FORMAT', 'Cannot tell the format of the input: expected a message array or a body with messages, input or contents.');
  }
  const hint = hintOf(messages);
  if (hint && hint !== 'neutral') return hint;
  // AI SDK input and the neutral model share their shapes: a model name or a tools record
  // says AI SDK call arguments; a bare array or { system, tools: [...], messages } says neutral.
  if (isRecord(body) && (isRecord(body.tools) || (hint === 'neutral' && typeof body.model === 'string'))) return 'ai-sdk';
  if (hint) return hint;
  if (isRecord(body) && Array.isArray(body.tools)) {
    const tool: unknown = body.tools[0];
    if (isRecord(tool) && tool.type === 'function' && isRecord(tool.function)) return 'openai-chat';
    if (isRecord(tool) && 'input_schema' in tool) return 'anthropic';
  }
  if (isRecord(body) && ('max_tokens' in body || Array.isArray(body.system))) return 'anthropic';
  if (isRecord(body) && isRecord(body.tools)) return 'ai-sdk';
  if (isRecord(body) && typeof body.model === 'string') return 'openai-chat';
  return 'neutral';
}
