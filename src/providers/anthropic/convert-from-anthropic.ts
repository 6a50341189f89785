import { z } from 'zod';
import type { Message, ToolDefinition, ToolResultOutput } from '../../message/message.js';
import { neutralToolInput } from '../../message/tool-call-input.js';
import { type ConversionOptions, type ConvertedRequest, conversionError, convertEach, otherFields, parseBody } from '../conversion.js';

const cacheControl = z.object({ type: z.literal('ephemeral'), ttl: z.string().optional() }).nullish();
const imageSource = z.discriminatedUnion('type', [
  z.object({ type: z.literal('base64'), media_type: z.string(), data: z.string() }),
  z.object({ type: z.literal('url'), url: z.string() }),
]);
const textBlock = z.object({ type: z.literal('text'), text: z.string(), cache_control: cacheControl, citations: z.unknown().optional() });
const imageBlock = z.object({ type: z.literal('image'), source: imageSource, cache_control: cacheControl });
const block = z.discriminatedUnion('type', [
  textBlock,
  imageBlock,
  z.object({
    type: z.literal('document'),
    source: z.discriminatedUnion('type', [
      z.object({ type: z.literal('base64'), media_type: z.string(), data: z.string() }),
      z.object({ type: z.literal('url'), url: z.string() }),
      z.object({ type: z.literal('text'), media_type: z.string(), data: z.string() }),
    ]),
    title: z.string().nullish(),
    context: z.string().nullish(),
    citations: z.unknown().optional(),
    cache_control: cacheControl,
  }),
  z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown(), cache_control: cacheControl }),
  z.object({
    type: z.literal('tool_result'),
    tool_use_id: z.string(),
    content: z.union([z.string(), z.array(z.discriminatedUnion('type', [textBlock, imageBlock]))]).optional(),
    is_error: z.boolean().optional(),
    cache_control: cacheControl,
  }),
  z.object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() }),
  z.object({ type: z.literal('redacted_thinking'), data: z.string() }),
]);
const bodySchema = z.looseObject({
  system: z.union([z.string(), z.array(textBlock)]).optional(),
  messages: z.array(
    z.union([
      z.object({ role: z.enum(['user', 'assistant']), content: z.union([z.string(), z.array(block)]) }),
      // A system message among the messages (Claude Code sends its environment so, with per-turn
      // fields such as `output_config`): it applies from its place on.
      z.looseObject({ role: z.literal('system'), content: z.union([z.string(), z.array(textBlock)]) }),
    ]),
  ),
  tools: z
    .array(
      z.looseObject({
        name: z.string(),
        description: z.string().optional(),
        input_schema: z.record(z.string(), z.unknown()).optional(),
        cache_control: cacheControl,
      }),
    )
    .optional(),
});

type CacheControl = z.infer<typeof cacheControl>;
const withCache = (control: CacheControl) => (control ? { providerOptions: { anthropic: { cacheControl: control } } } : {});

/**
 * Takes an Anthropic Messages body apart. Tool results stay in the user message that carries
 * them (they continue the exchange); thinking and redacted thinking become reasoning parts with
 * their signature or data in `providerOptions.anthropic`, as does every `cache_control`.
 * @throws SlidingContextError naming the field: an unknown role or block, a tool result whose
 * `tool_use` is missing (`messages[3].content[0].tool_use_id`); with `onRefused`, such a message
 * is reported and left out instead.
 */
export function convertFromAnthropic(body: unknown, conversion: ConversionOptions = {}): ConvertedRequest {
  const parsed = parseBody(bodySchema, body, 'Anthropic Messages');
  const toolNames = new Map<string, string>();
  const messages: Message[] = [];
  const convertMessage = (message: (typeof parsed.messages)[number], index: number): Message => {
    if (message.role === 'system') return systemMessageOf(message);
    if (typeof message.content === 'string') return { role: message.role, content: message.content };
    // Known once the message is accepted: a refused message's calls answer nothing.
    const calls: [string, string][] = [];
    const parts = message.content.map((part, partIndex) => {
      switch (part.type) {
        case 'text':
          return { type: 'text' as const, text: part.text, ...withCache(part.cache_control) };
        case 'image':
          return part.source.type === 'url'
            ? { type: 'image' as const, image: part.source.url, ...withCache(part.cache_control) }
            : { type: 'image' as const, image: part.source.data, mediaType: part.source.media_type, ...withCache(part.cache_control) };
        case 'document': {
          const extra = {
            ...(part.title ? { title: part.title } : {}),
            ...(part.context ? { context: part.context } : {}),
            ...(part.citations === undefined ? {} : { citations: part.citations }),
            ...(part.cache_control ? { cacheControl: part.cache_control } : {}),
          };
          const options = Object.keys(extra).length > 0 ? { providerOptions: { anthropic: extra } } : {};
          if (part.source.type === 'url') return { type: 'file' as const, data: part.source.url, mediaType: 'application/pdf', ...options };
          return { type: 'file' as const, data: part.source.data, mediaType: part.source.media_type, ...options };
        }
        case 'tool_use':
          calls.push([part.id, part.name]);
          return { type: 'tool-call' as const, toolCallId: part.id, toolName: part.name, input: neutralToolInput(part.input), ...withCache(part.cache_control) };
        case 'tool_result': {
          const toolName = toolNames.get(part.tool_use_id);
          if (toolName === undefined) {
            throw conversionError(`messages[${index}].content[${partIndex}].tool_use_id`, `no earlier tool_use has the id "${part.tool_use_id}"`, 'ORPHANED_TOOL_RESULT');
          }
          return { type: 'tool-result' as const, toolCallId: part.tool_use_id, toolName, output: outputOf(part.content, part.is_error === true), ...withCache(part.cache_control) };
        }
        case 'thinking':
          return { type: 'reasoning' as const, text: part.thinking, providerOptions: { anthropic: { signature: part.signature } } };
        case 'redacted_thinking':
          return { type: 'reasoning' as const, text: '', providerOptions: { anthropic: { redactedData: part.data } } };
      }
    });
    if (message.role === 'user') {
      const userParts = parts.filter((part) => part.type !== 'tool-call' && part.type !== 'reasoning');
      if (userParts.length !== parts.length) throw conversionError(`messages[${index}].content`, 'a user message cannot hold tool_use or thinking blocks');
      return { role: 'user', content: userParts };
    }
    const assistantParts = parts.filter((part) => part.type !== 'image' && part.type !== 'tool-result');
    if (assistantParts.length !== parts.length) throw conversionError(`messages[${index}].content`, 'an assistant message cannot hold image or tool_result blocks');
    for (const [id, name] of calls) toolNames.set(id, name);
    return { role: 'assistant', content: assistantParts };
  };
  convertEach(parsed.messages, (message, index) => messages.push(convertMessage(message, index)), conversion);
  const custom = (parsed.tools ?? []).filter((tool) => tool.input_schema !== undefined);
  const serverTools = (parsed.tools ?? []).filter((tool) => tool.input_schema === undefined);
  const tools: ToolDefinition[] = custom.map((tool) => ({
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    inputSchema: tool.input_schema ?? {},
    ...withCache(tool.cache_control),
  }));
  const system = typeof parsed.system === 'string' ? parsed.system : parsed.system?.map((part) => part.text).join('\n\n');
  const keepSystemBlocks = Array.isArray(parsed.system) && parsed.system.some((part) => part.cache_control || part.citations !== undefined);
  return {
    ...(system === undefined ? {} : { system }),
    messages: withEnvironmentFirst(messages),
    ...(tools.length > 0 ? { tools } : {}),
    options: {
      ...otherFields(parsed, ['system', 'messages', 'tools']),
      ...(keepSystemBlocks ? { system: parsed.system } : {}),
      ...(serverTools.length > 0 ? { serverTools } : {}),
    },
  };
}

/**
 * A system message that stood among the messages: marked `providerOptions.anthropic.inMessages` so it
 * goes back to its place, not into `system`, with its other fields (`fields`) and, when they carry
 * more than one plain text, its blocks.
 */
function systemMessageOf(message: { content: string | readonly z.infer<typeof textBlock>[] } & Record<string, unknown>): Message {
  const { content } = message;
  const fields = otherFields(message, ['role', 'content']);
  const shape = typeof content === 'string'
    ? {}
    : content.length === 1 && !content[0]?.cache_control && content[0]?.citations === undefined ? { asBlocks: true } : { blocks: content };
  const anthropic = { inMessages: true, ...shape, ...(Object.keys(fields).length > 0 ? { fields } : {}) };
  return { role: 'system', content: typeof content === 'string' ? content : content.map((part) => part.text).join('\n\n'), providerOptions: { anthropic } };
}

/**
 * Claude Code sends its environment as a system message right after the first user message. Such
 * system messages (followed by the first reply, or by nothing yet) are moved before that user
 * message and marked `providerOptions.anthropic.afterFirstUser`: before the first exchange they
 * belong to the preamble, so no window leaves them out, and the body is built with them back in
 * their place, after the window's first user message.
 */
function withEnvironmentFirst(messages: readonly Message[]): Message[] {
  const [first] = messages;
  let end = 1;
  while (messages[end]?.role === 'system') end++;
  const next = messages[end];
  if (first?.role !== 'user' || end === 1 || (next !== undefined && next.role !== 'assistant')) return [...messages];
  const environment = messages.slice(1, end).map((message) => ({
    ...message,
    providerOptions: { ...message.providerOptions, anthropic: { ...message.providerOptions?.anthropic, afterFirstUser: true } },
  }));
  return [...environment, first, ...messages.slice(end)];
}

function outputOf(content: string | readonly ({ type: 'text'; text: string } | { type: 'image'; source: z.infer<typeof imageSource> })[] | undefined, isError: boolean): ToolResultOutput {
  if (content === undefined || typeof content === 'string') return { type: isError ? 'error-text' : 'text', value: content ?? '' };
  const texts = content.flatMap((item) => (item.type === 'text' ? [item.text] : []));
  if (texts.length === content.length) return { type: isError ? 'error-text' : 'text', value: texts.join('') };
  return {
    type: 'content',
    value: content.map((item) =>
      item.type === 'text'
        ? { type: 'text' as const, text: item.text }
        : { type: 'media' as const, data: item.source.type === 'url' ? item.source.url : item.source.data, mediaType: item.source.type === 'url' ? 'image/*' : item.source.media_type },
    ),
  };
}
