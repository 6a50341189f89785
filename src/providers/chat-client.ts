import type Anthropic from '@anthropic-ai/sdk';
import type { GenerateContentParameters, GoogleGenAI } from '@google/genai';
import type OpenAI from 'openai';
import type { ModelMessage } from '../message/message.js';
import { convertFromAnthropic } from './anthropic/convert-from-anthropic.js';
import { convertFromGoogle } from './google/convert-from-google.js';
import { convertFromOpenAiChat } from './openai/chat/convert-from-openai-chat.js';

/** A model's reply to one request: the assistant message (text and tool calls) and the usage reported. */
export interface ChatReply {
  readonly message: ModelMessage;
  /** The provider's usage object, as `Conversation.endTurn` takes it. */
  readonly usage: unknown;
  readonly stopReason: string | undefined;
}

/** Sends a provider-shaped request and streams the reply's text as it comes. */
export interface ChatClient {
  stream(request: unknown, onText: (text: string) => void, signal?: AbortSignal): Promise<ChatReply>;
}

/** The assistant message a provider body holds, converted like any other body. */
function assistantOf(messages: ModelMessage[]): ModelMessage {
  const message = messages.find((entry) => entry.role === 'assistant');
  return message ?? { role: 'assistant', content: '' };
}

/** True when `text` parses as JSON. */
function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The message with the tool calls at the given positions given back their arguments text as it
 * came, as a string `input` (and, for the OpenAI wire format, as the text sent back): a model does
 * emit arguments that are not JSON, and the chat answers them instead of failing the turn.
 */
function withArgumentsText(message: ModelMessage, texts: ReadonlyMap<number, string>): ModelMessage {
  if (texts.size === 0 || message.role !== 'assistant' || typeof message.content === 'string') return message;
  let position = -1;
  const content = message.content.map((part) => {
    if (part.type !== 'tool-call') return part;
    const text = texts.get(++position);
    if (text === undefined) return part;
    return { ...part, input: text, providerOptions: { ...part.providerOptions, openai: { ...part.providerOptions?.openai, arguments: text } } };
  });
  return { ...message, content };
}

/** Chat Completions with `stream: true` (OpenAI, and any OpenAI-compatible server by base URL). */
export function openAiChatClient(client: Pick<OpenAI, 'chat'>): ChatClient {
  return {
    async stream(request, onText, signal) {
      const body = { ...(request as OpenAI.ChatCompletionCreateParamsNonStreaming), stream: true as const, stream_options: { include_usage: true } };
      const stream = await client.chat.completions.create(body, { signal });
      let text = '';
      let usage: unknown;
      let stopReason: string | undefined;
      const calls: { id: string; name: string; arguments: string }[] = [];
      for await (const chunk of stream) {
        if (chunk.usage) usage = chunk.usage;
        const choice = chunk.choices[0];
        if (!choice) continue;
        if (choice.finish_reason) stopReason = choice.finish_reason;
        if (choice.delta.content) {
          text += choice.delta.content;
          onText(choice.delta.content);
        }
        for (const call of choice.delta.tool_calls ?? []) {
          const entry = (calls[call.index] ??= { id: '', name: '', arguments: '' });
          if (call.id) entry.id = call.id;
          if (call.function?.name) entry.name += call.function.name;
          if (call.function?.arguments) entry.arguments += call.function.arguments;
        }
      }
      const brokenArguments = new Map<number, string>();
      const toolCalls = calls.filter(Boolean).map((call, index) => {
        const argumentsText = call.arguments || '{}';
        // Converted as `{}` and given back its text after: the converter refuses text that is not JSON.
        if (!isJson(argumentsText)) brokenArguments.set(index, argumentsText);
        return { id: call.id, type: 'function' as const, function: { name: call.name, arguments: brokenArguments.has(index) ? '{}' : argumentsText } };
      });
      const assistant = { role: 'assistant', content: text === '' ? null : text, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) };
      const message = assistantOf(convertFromOpenAiChat({ messages: [assistant] }).messages as ModelMessage[]);
      return { message: withArgumentsText(message, brokenArguments), usage, stopReason };
    },
  };
}

/** The Messages API with `stream: true`. */
export function anthropicClient(client: Pick<Anthropic, 'messages'>): ChatClient {
  return {
    async stream(request, onText, signal) {
      const stream = await client.messages.create({ ...(request as Anthropic.MessageCreateParamsNonStreaming), stream: true }, { signal });
      const blocks: Record<string, unknown>[] = [];
      const json: string[] = [];
      let usage: Record<string, unknown> = {};
      let stopReason: string | undefined;
      for await (const event of stream) {
        switch (event.type) {
          case 'message_start':
            usage = { ...event.message.usage };
            break;
          case 'content_block_start':
            blocks[event.index] = { ...event.content_block };
            json[event.index] = '';
            break;
          case 'content_block_delta': {
            const block = blocks[event.index] ?? {};
            if (event.delta.type === 'text_delta') {
              block.text = `${typeof block.text === 'string' ? block.text : ''}${event.delta.text}`;
              onText(event.delta.text);
            } else if (event.delta.type === 'input_json_delta') json[event.index] = `${json[event.index] ?? ''}${event.delta.partial_json}`;
            else if (event.delta.type === 'thinking_delta') block.thinking = `${typeof block.thinking === 'string' ? block.thinking : ''}${event.delta.thinking}`;
            else if (event.delta.type === 'signature_delta') block.signature = event.delta.signature;
            break;
          }
          case 'content_block_stop': {
            const block = blocks[event.index];
            const partial = json[event.index];
            // Input that is not JSON is kept as its text, for the chat to answer.
            if (block?.type === 'tool_use' && partial) block.input = isJson(partial) ? (JSON.parse(partial) as unknown) : partial;
            break;
          }
          case 'message_delta':
            usage = { ...usage, ...Object.fromEntries(Object.entries(event.usage).filter(([, value]) => value !== null)) };
            stopReason = event.delta.stop_reason ?? undefined;
            break;
          default:
            break;
        }
      }
      const content = blocks.filter(Boolean);
      const messages = convertFromAnthropic({ messages: [{ role: 'assistant', content: content.length > 0 ? content : '' }] }).messages as ModelMessage[];
      return { message: assistantOf(messages), usage, stopReason };
    },
  };
}

/** `generateContentStream` of the Gemini API. */
export function googleClient(client: Pick<GoogleGenAI, 'models'>): ChatClient {
  return {
    async stream(request, onText, signal) {
      // The body is already `generateContentStream`'s parameters (see buildGoogleRequest).
      const body = request as GenerateContentParameters;
      const stream = await client.models.generateContentStream({ ...body, config: { ...body.config, ...(signal ? { abortSignal: signal } : {}) } });
      const parts: Record<string, unknown>[] = [];
      let usage: unknown;
      let stopReason: string | undefined;
      for await (const chunk of stream) {
        if (chunk.usageMetadata) usage = chunk.usageMetadata;
        const candidate = chunk.candidates?.[0];
        if (candidate?.finishReason) stopReason = candidate.finishReason;
        for (const part of candidate?.content?.parts ?? []) {
          if (typeof part.text === 'string' && part.thought !== true) onText(part.text);
          parts.push({ ...part });
        }
      }
      const messages = convertFromGoogle({ contents: [{ role: 'model', parts }] }).messages as ModelMessage[];
      return { message: assistantOf(messages), usage, stopReason };
    },
  };
}
