import { z } from 'zod';
import { splitDataUrl } from '../../../message/data-url.js';
import type { AssistantMessage, Message, ToolDefinition, UserMessage } from '../../../message/message.js';
import { type ConvertedRequest, conversionError, otherFields, parseArguments, parseBody, rawArguments } from '../../conversion.js';

const text = z.object({ type: z.literal('text'), text: z.string() });
const userPart = z.discriminatedUnion('type', [
  text,
  z.object({ type: z.literal('image_url'), image_url: z.object({ url: z.string(), detail: z.enum(['auto', 'low', 'high']).optional() }) }),
  z.object({ type: z.literal('file'), file: z.object({ file_data: z.string().optional(), file_id: z.string().optional(), filename: z.string().optional() }) }),
  z.object({ type: z.literal('input_audio'), input_audio: z.object({ data: z.string(), format: z.enum(['wav', 'mp3']) }) }),
]);
const toolCall = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
const messageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.enum(['system', 'developer']), content: z.union([z.string(), z.array(text)]), name: z.string().optional() }),
  z.object({ role: z.literal('user'), content: z.union([z.string(), z.array(userPart)]), name: z.string().optional() }),
  z.object({
    role: z.literal('assistant'),
    content: z.union([z.string(), z.array(z.discriminatedUnion('type', [text, z.object({ type: z.literal('refusal'), refusal: z.string() })]))]).nullish(),
    name: z.string().optional(),
    refusal: z.string().nullish(),
    tool_calls: z.array(toolCall).optional(),
  }),
  z.object({ role: z.literal('tool'), tool_call_id: z.string(), content: z.union([z.string(), z.array(text)]) }),
]);
const bodySchema = z.looseObject({
  messages: z.array(messageSchema),
  tools: z.array(z.object({ type: z.literal('function'), function: z.object({ name: z.string(), description: z.string().optional(), parameters: z.record(z.string(), z.unknown()).optional(), strict: z.boolean().nullish() }) })).optional(),
});

const joinText = (content: string | readonly { text: string }[]) => (typeof content === 'string' ? content : content.map((part) => part.text).join(''));
/** The media type a data URL names, if it is one. */
const mediaTypeOf = (url: string) => (url.startsWith('data:') ? splitDataUrl(url, '').mediaType || undefined : undefined);

/**
 * Takes an OpenAI Chat Completions body apart: messages (system and developer as system
 * messages), tool calls with parsed arguments (text that is not JSON kept as a string input),
 * tool results named after their nearest call of that id, images,
 * files and audio; `name` and `refusal` go to `providerOptions.openai`.
 * @throws SlidingContextError naming the field: an unknown role, a tool result whose call is
 * missing.
 */
export function convertFromOpenAiChat(body: unknown): ConvertedRequest {
  const parsed = parseBody(bodySchema, body, 'OpenAI Chat');
  const toolNames = new Map<string, string>();
  const messages: Message[] = parsed.messages.map((message, index): Message => {
    const at = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer':
        return {
          role: 'system',
          content: joinText(message.content),
          ...(message.role === 'developer' || message.name ? { providerOptions: { openai: { ...(message.role === 'developer' ? { role: 'developer' } : {}), ...(message.name ? { name: message.name } : {}) } } } : {}),
        };
      case 'user': {
        const content: UserMessage['content'] =
          typeof message.content === 'string'
            ? message.content
            : message.content.map((part) => {
                switch (part.type) {
                  case 'text':
                    return { type: 'text', text: part.text };
                  case 'image_url': {
                    const mediaType = mediaTypeOf(part.image_url.url);
                    return {
                      type: 'image',
                      image: part.image_url.url,
                      ...(mediaType ? { mediaType } : {}),
                      ...(part.image_url.detail ? { providerOptions: { openai: { imageDetail: part.image_url.detail } } } : {}),
                    };
                  }
                  case 'file':
                    return {
                      type: 'file',
                      data: part.file.file_data ?? part.file.file_id ?? '',
                      mediaType: mediaTypeOf(part.file.file_data ?? '') ?? 'application/pdf',
                      ...(part.file.filename ? { filename: part.file.filename } : {}),
                      ...(part.file.file_id ? { providerOptions: { openai: { fileId: part.file.file_id } } } : {}),
                    };
                  case 'input_audio':
                    return { type: 'file', data: part.input_audio.data, mediaType: part.input_audio.format === 'wav' ? 'audio/wav' : 'audio/mpeg' };
                }
              });
        return { role: 'user', content, ...(message.name ? { providerOptions: { openai: { name: message.name } } } : {}) };
      }
      case 'assistant': {
        const parts: Exclude<AssistantMessage['content'], string> = [];
        if (typeof message.content === 'string' && message.content !== '') parts.push({ type: 'text', text: message.content });
        if (Array.isArray(message.content)) {
          for (const part of message.content) if (part.type === 'text') parts.push({ type: 'text', text: part.text });
        }
        (message.tool_calls ?? []).forEach((call) => {
          toolNames.set(call.id, call.function.name);
          const input = parseArguments(call.function.arguments);
          parts.push({ type: 'tool-call', toolCallId: call.id, toolName: call.function.name, input, ...rawArguments(call.function.arguments, input) });
        });
        const options = { ...(message.name ? { name: message.name } : {}), ...(message.refusal ? { refusal: message.refusal } : {}) };
        const [first] = parts;
        const onlyText = parts.length === 1 && first?.type === 'text' && typeof message.content === 'string';
        return {
          role: 'assistant',
          content: onlyText ? first.text : parts,
          ...(Object.keys(options).length > 0 ? { providerOptions: { openai: options } } : {}),
        };
      }
      case 'tool': {
        const toolName = toolNames.get(message.tool_call_id);
        if (toolName === undefined) {
          throw conversionError(`${at}.tool_call_id`, `no earlier assistant message has a tool call "${message.tool_call_id}"`, 'ORPHANED_TOOL_RESULT');
        }
        return {
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: message.tool_call_id, toolName, output: { type: 'text', value: joinText(message.content) } }],
        };
      }
    }
  });
  const tools: ToolDefinition[] | undefined = parsed.tools?.map((tool) => ({
    name: tool.function.name,
    ...(tool.function.description === undefined ? {} : { description: tool.function.description }),
    inputSchema: tool.function.parameters ?? { type: 'object', properties: {} },
    ...(tool.function.strict == null ? {} : { providerOptions: { openai: { strict: tool.function.strict } } }),
  }));
  return { messages, ...(tools ? { tools } : {}), options: otherFields(parsed, ['messages', 'tools']) };
}
