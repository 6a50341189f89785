import type {
  ChatCompletionContentPart,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { ModelMessage, ToolResultPart } from '../../../message/message.js';
import { toolOutputText } from '../../../message/tool-output-text.js';
import type { NeutralRequest } from '../../_neutral-request.js';
import { providerOption, providerString } from '../../_provider-option.js';
import { argumentsText } from '../../conversion.js';
import { convertEach, type ConvertedMessages } from '../../converted-messages.js';
import { type PromptCacheHints, withPromptCacheKey } from '../../prompt-cache-hints.js';

function toolMessage(part: ToolResultPart): ChatCompletionMessageParam {
  return { role: 'tool', tool_call_id: part.toolCallId, content: toolOutputText(part.output) };
}

function convertMessage(message: ModelMessage): ChatCompletionMessageParam[] {
  const name = providerString(message.providerOptions, 'openai', 'name');
  const named = name ? { name } : {};
  switch (message.role) {
    case 'system': {
      // A system message sent in another role: a developer message, or context a client sent as a user message.
      const role = providerString(message.providerOptions, 'openai', 'role');
      return [role === 'developer' || role === 'user' ? { role, content: message.content, ...named } : { role: 'system', content: message.content, ...named }];
    }
    case 'user': {
      if (typeof message.content === 'string') return [{ role: 'user', content: message.content, ...named }];
      const results = message.content.filter((part) => part.type === 'tool-result').map(toolMessage);
      const parts: ChatCompletionContentPart[] = [];
      for (const part of message.content) {
        if (part.type === 'text') parts.push({ type: 'text', text: part.text });
        if (part.type === 'image') {
          const detail = providerString(part.providerOptions, 'openai', 'imageDetail');
          parts.push({ type: 'image_url', image_url: { url: part.image, ...(detail === 'low' || detail === 'high' || detail === 'auto' ? { detail } : {}) } });
        }
        if (part.type === 'file') {
          if (part.mediaType.startsWith('audio/')) {
            parts.push({ type: 'input_audio', input_audio: { data: part.data, format: part.mediaType === 'audio/wav' ? 'wav' : 'mp3' } });
          } else {
            const fileId = providerString(part.providerOptions, 'openai', 'fileId');
            parts.push({ type: 'file', file: fileId ? { file_id: fileId } : { file_data: part.data, ...(part.filename ? { filename: part.filename } : {}) } });
          }
        }
      }
      return parts.length > 0 ? [...results, { role: 'user', content: parts, ...named }] : results;
    }
    case 'assistant': {
      const refusal = providerString(message.providerOptions, 'openai', 'refusal');
      if (typeof message.content === 'string') return [{ role: 'assistant', content: message.content, ...named, ...(refusal ? { refusal } : {}) }];
      const texts = message.content.filter((part) => part.type === 'text').map((part) => part.text);
      const calls: ChatCompletionMessageToolCall[] = message.content
        .filter((part) => part.type === 'tool-call')
        .map((part) => ({ id: part.toolCallId, type: 'function', function: { name: part.toolName, arguments: argumentsText(part) } }));
      const results = message.content.filter((part) => part.type === 'tool-result').map(toolMessage);
      return [
        {
          role: 'assistant',
          content: texts.length === 0 ? null : texts.length === 1 ? (texts[0] ?? '') : texts.map((text) => ({ type: 'text' as const, text })),
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
          ...named,
          ...(refusal ? { refusal } : {}),
        },
        ...results,
      ];
    }
    case 'tool':
      return message.content.map(toolMessage);
  }
}

/**
 * Builds an OpenAI Chat Completions body from neutral messages: the system prompt first, tool
 * results as one `tool` message each, reasoning left out (Chat does not take it back).
 * With `cache` hints the body carries `prompt_cache_key` (unless its options set one).
 */
export function buildOpenAiChatRequest(
  request: NeutralRequest & {
    readonly options?: Readonly<Record<string, unknown>> | undefined;
    readonly cache?: PromptCacheHints | undefined;
    readonly converted?: ConvertedMessages | undefined;
  },
): ChatCompletionCreateParamsNonStreaming {
  const messages: ChatCompletionMessageParam[] = [
    ...(request.system === undefined ? [] : [{ role: 'system' as const, content: request.system }]),
    ...convertEach(request.messages, convertMessage, request.converted),
  ];
  const tools: ChatCompletionTool[] = (request.tools ?? []).map((tool) => {
    const strict = providerOption(tool.providerOptions, 'openai', 'strict');
    return {
      type: 'function',
      function: {
        name: tool.name,
        ...(tool.description === undefined ? {} : { description: tool.description }),
        parameters: { ...tool.inputSchema },
        ...(typeof strict === 'boolean' ? { strict } : {}),
      },
    };
  });
  return { ...withPromptCacheKey(request.options ?? {}, request.cache), model: request.model, messages, ...(tools.length > 0 ? { tools } : {}) };
}
