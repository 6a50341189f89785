import type {
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  TextBlockParam,
  Tool,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import { isUrl, splitDataUrl } from '../../message/data-url.js';
import type { ModelMessage, ProviderOptions, ToolResultOutput } from '../../message/message.js';
import { objectToolInput } from '../../message/tool-call-input.js';
import { toolOutputText } from '../../message/tool-output-text.js';
import type { NeutralRequest } from '../_neutral-request.js';
import { providerOption, providerString } from '../_provider-option.js';
import type { ConvertedMessages } from '../converted-messages.js';
import type { PromptCacheHints } from '../prompt-cache-hints.js';
import { isSummaryMessage } from '../../condense/stored-summary.js';
import { type BlockLocation, type BreakpointTargets, placeBreakpoints } from './anthropic-breakpoints.js';
import { blocksIn } from './content-blocks.js';

type ImageMediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';
const isImageMediaType = (value: string): value is ImageMediaType => ['image/jpeg', 'image/png', 'image/gif', 'image/webp'].includes(value);
/** `cache_control` from `providerOptions.anthropic.cacheControl`, when set. */
function cacheOf(options: ProviderOptions | undefined): { cache_control?: { type: 'ephemeral'; ttl?: '5m' | '1h' } } {
  const value = providerOption(options, 'anthropic', 'cacheControl');
  if (typeof value !== 'object' || value === null || !('type' in value) || value.type !== 'ephemeral') return {};
  const rawTtl: unknown = 'ttl' in value ? value.ttl : undefined;
  const ttl: { ttl?: '5m' | '1h' } = rawTtl === '5m' ? { ttl: '5m' } : rawTtl === '1h' ? { ttl: '1h' } : {};
  return { cache_control: { type: 'ephemeral', ...ttl } };
}

function imageSource(image: string, mediaType: string | undefined) {
  if (isUrl(image)) return { type: 'url' as const, url: image };
  const split = splitDataUrl(image, mediaType ?? 'image/png');
  return { type: 'base64' as const, media_type: isImageMediaType(split.mediaType) ? split.mediaType : 'image/png', data: split.data };
}

function resultContent(output: ToolResultOutput): Exclude<ToolResultBlockParam['content'], undefined> {
  if (output.type !== 'content') return toolOutputText(output);
  return output.value.map((item) =>
    item.type === 'text' ? { type: 'text' as const, text: item.text } : { type: 'image' as const, source: imageSource(item.data, item.mediaType) },
  );
}

function blocksOf(message: ModelMessage): ContentBlockParam[] {
  if (typeof message.content === 'string') return [{ type: 'text', text: message.content, ...cacheOf(message.providerOptions) }];
  const blocks: ContentBlockParam[] = [];
  for (const part of message.content) {
    const cache = cacheOf(part.providerOptions);
    switch (part.type) {
      case 'text':
        blocks.push({ type: 'text', text: part.text, ...cache });
        break;
      case 'image':
        blocks.push({ type: 'image', source: imageSource(part.image, part.mediaType), ...cache });
        break;
      case 'file': {
        const title = providerString(part.providerOptions, 'anthropic', 'title');
        const context = providerString(part.providerOptions, 'anthropic', 'context');
        const extra = { ...(title ? { title } : {}), ...(context ? { context } : {}), ...cache };
        if (isUrl(part.data)) blocks.push({ type: 'document', source: { type: 'url', url: part.data }, ...extra });
        else if (part.mediaType === 'text/plain') blocks.push({ type: 'document', source: { type: 'text', media_type: 'text/plain', data: part.data }, ...extra });
        else blocks.push({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: splitDataUrl(part.data).data }, ...extra });
        break;
      }
      case 'reasoning': {
        const signature = providerString(part.providerOptions, 'anthropic', 'signature');
        const redacted = providerString(part.providerOptions, 'anthropic', 'redactedData');
        if (redacted !== undefined) blocks.push({ type: 'redacted_thinking', data: redacted });
        else if (signature !== undefined) blocks.push({ type: 'thinking', thinking: part.text, signature });
        // Reasoning without a signature cannot be sent back to Anthropic: it is left out.
        break;
      }
      case 'tool-call':
        // Raw argument text that is not JSON goes as `{ _raw_arguments: text }`: the input must be an object.
        blocks.push({ type: 'tool_use', id: part.toolCallId, name: part.toolName, input: objectToolInput(part.input) ?? {}, ...cache });
        break;
      case 'tool-result':
        blocks.push({
          type: 'tool_result',
          tool_use_id: part.toolCallId,
          content: resultContent(part.output),
          ...(part.output.type.startsWith('error') ? { is_error: true } : {}),
          ...cache,
        });
        break;
    }
  }
  return blocks;
}

/**
 * An assistant message that holds tool results split into turns: Anthropic takes a `tool_result`
 * only in the user turn right after its `tool_use`, so a call id used again for a later call
 * stays paired with its own result.
 */
function turnsOf(message: ModelMessage): ModelMessage[] {
  if (message.role !== 'assistant' || typeof message.content === 'string' || !message.content.some((part) => part.type === 'tool-result')) return [message];
  const turns: ModelMessage[] = [];
  for (const part of message.content) {
    const role = part.type === 'tool-result' ? 'tool' : 'assistant';
    const last = turns.at(-1);
    if (last?.role === 'tool' && part.type === 'tool-result') last.content.push(part);
    else if (last?.role === 'assistant' && typeof last.content !== 'string' && part.type !== 'tool-result') last.content.push(part);
    else if (part.type === 'tool-result') turns.push({ role, content: [part] });
    else turns.push({ ...message, content: [part] });
  }
  return turns;
}

/** A message's turns as messages of the body: the text of one as it came where it can be, else its blocks. */
function turnMessagesOf(message: ModelMessage): MessageParam[] {
  return turnsOf(message).map((turn) => ({
    role: turn.role === 'assistant' ? 'assistant' : 'user',
    content: typeof turn.content === 'string' && !turn.providerOptions ? turn.content : blocksOf(turn),
  }));
}

/** A system message that came from among an Anthropic body's messages, and goes back there. */
function inMessages(message: ModelMessage): boolean {
  return providerOption(message.providerOptions, 'anthropic', 'inMessages') === true;
}

/** Such a system message's content as it came: a string, one text block, or its own blocks. */
function systemMessageContent(message: ModelMessage & { role: 'system' }): string | TextBlockParam[] {
  const blocks = providerOption(message.providerOptions, 'anthropic', 'blocks');
  if (Array.isArray(blocks)) return (blocks as TextBlockParam[]).map((block) => ({ ...block }));
  return providerOption(message.providerOptions, 'anthropic', 'asBlocks') === true ? [{ type: 'text', text: message.content }] : message.content;
}

/**
 * Builds an Anthropic Messages body: the system prompt (and any system messages) as `system`,
 * except a system message that came from among the messages, which goes back to its place there;
 * tool results in user turns (each right after the turn of its call), consecutive turns of one role merged, thinking blocks with their
 * signatures, and `cache_control` restored wherever `providerOptions.anthropic` carried it.
 * With `cache` hints the stable prefix is marked too (see {@link placeBreakpoints}); the system
 * prompt and each system message are then blocks of their own.
 */
export function buildAnthropicRequest(
  request: NeutralRequest & {
    readonly maxTokens?: number | undefined;
    readonly options?: Readonly<Record<string, unknown>> | undefined;
    readonly cache?: PromptCacheHints | undefined;
    readonly converted?: ConvertedMessages | undefined;
  },
): MessageCreateParamsNonStreaming {
  const { system: originalSystem, serverTools, ...options } = request.options ?? {};
  const systemMessages = request.messages.flatMap((message) => (message.role === 'system' && !inMessages(message) ? [message.content] : []));
  const systemText = [request.system, ...systemMessages].filter((text): text is string => text !== undefined).join('\n\n');
  // The body's own system blocks stand for `request.system`; system messages (a pinned summary,
  // say) follow them as blocks of their own.
  const leadBlocks: TextBlockParam[] = Array.isArray(originalSystem)
    ? (originalSystem as TextBlockParam[]).map((block) => ({ ...block }))
    : request.system
      ? [{ type: 'text', text: request.system }]
      : [];
  const systemBlocks = [...leadBlocks, ...systemMessages.map((text): TextBlockParam => ({ type: 'text', text }))];
  const system: string | TextBlockParam[] | undefined =
    Array.isArray(originalSystem) || (request.cache && systemBlocks.length > 0) ? systemBlocks : systemText || undefined;
  const messages: MessageParam[] = [];
  const locations: (BlockLocation | undefined)[] = [];
  let systemMessageIndex = 0;
  const pushSystemMessage = (neutral: ModelMessage & { role: 'system' }, index: number) => {
    const content = systemMessageContent(neutral);
    const fields = providerOption(neutral.providerOptions, 'anthropic', 'fields');
    messages.push({ ...(typeof fields === 'object' && fields !== null ? fields : {}), role: 'system', content });
    locations[index] = { in: 'messages', message: messages.length - 1, block: typeof content === 'string' ? 0 : content.length - 1 };
  };
  // Those that came right after the first user message wait for it (see convertFromAnthropic).
  const afterFirstUser: [ModelMessage & { role: 'system' }, number][] = [];
  for (const [index, neutral] of request.messages.entries()) {
    if (neutral.role === 'system' && inMessages(neutral)) {
      if (messages.length === 0 && providerOption(neutral.providerOptions, 'anthropic', 'afterFirstUser') === true) afterFirstUser.push([neutral, index]);
      else pushSystemMessage(neutral, index);
      continue;
    }
    if (neutral.role === 'system') {
      locations[index] = { in: 'system', block: leadBlocks.length + systemMessageIndex++ };
      continue;
    }
    for (const turn of request.converted ? request.converted.of(neutral, turnMessagesOf) : turnMessagesOf(neutral)) {
      const previous = messages.at(-1);
      // Anthropic wants turns to alternate: a second turn of one role joins the first, in a new message (a kept one is frozen).
      if (previous?.role !== turn.role) messages.push(turn);
      else messages[messages.length - 1] = { ...previous, content: [...blocksIn(previous.content), ...blocksIn(turn.content)] } as MessageParam;
    }
    const last = messages.at(-1);
    if (last) locations[index] = { in: 'messages', message: messages.length - 1, block: typeof last.content === 'string' ? 0 : last.content.length - 1 };
    if (messages.length > 0) for (const [system, at] of afterFirstUser.splice(0)) pushSystemMessage(system, at);
  }
  for (const [system, at] of afterFirstUser.splice(0)) pushSystemMessage(system, at);
  const tools: Tool[] = (request.tools ?? []).map((tool) => ({
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    input_schema: { type: 'object', ...tool.inputSchema },
    ...cacheOf(tool.providerOptions),
  }));
  const allTools = [...tools, ...(Array.isArray(serverTools) ? (serverTools as Tool[]).map((tool) => ({ ...tool })) : [])];
  const body: MessageCreateParamsNonStreaming = {
    ...options,
    model: request.model,
    max_tokens: request.maxTokens ?? (typeof options.max_tokens === 'number' ? options.max_tokens : 4096),
    messages,
    ...(system ? { system } : {}),
    ...(allTools.length > 0 ? { tools: allTools } : {}),
  };
  if (!request.cache) return body;
  return placeBreakpoints(body, breakpointTargets(request.messages, locations, request.cache, leadBlocks.length, allTools.length));
}

/**
 * Where the stable prefix ends: the last of the messages unchanged since the previous request,
 * or (when that is unknown) the message before the newest user message; the end of the system
 * prompt proper (or of the tools, without one); the pinned summary.
 */
function breakpointTargets(
  messages: readonly ModelMessage[],
  locations: readonly (BlockLocation | undefined)[],
  cache: PromptCacheHints,
  leadBlocks: number,
  toolCount: number,
): BreakpointTargets {
  const newestUser = messages.findLastIndex((message) => message.role === 'user');
  const stableCount = cache.stablePrefixMessages ?? newestUser;
  const stablePrefix = stableCount > 0 ? locations.slice(0, Math.min(stableCount, locations.length)).findLast((location) => location !== undefined) : undefined;
  const summaryIndex = messages.findIndex(isSummaryMessage);
  const preamble = leadBlocks > 0 ? { in: 'system' as const, block: leadBlocks - 1 } : toolCount > 0 ? { in: 'tools' as const, tool: toolCount - 1 } : undefined;
  return { stablePrefix, preamble, summary: summaryIndex === -1 ? undefined : locations[summaryIndex] };
}
