import type OpenAI from 'openai';
import type { ModelMessage } from '../../message/message.js';
import { assistantOf, isJson } from '../_assistant-of.js';
import type { ChatClient } from '../chat-client.js';
import { convertFromOpenAiChat } from './chat/convert-from-openai-chat.js';

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
