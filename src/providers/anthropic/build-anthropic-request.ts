import type { ContentBlockParam, MessageCreateParamsNonStreaming, MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages';
import type { ModelMessage } from '../../message/message.js';
import { isUrl, type NeutralRequest, splitDataUrl, toolResultText } from '../_neutral-request.js';

type ImageMediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';
const imageTypes: readonly string[] = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

function blocksOf(message: ModelMessage): ContentBlockParam[] {
  if (typeof message.content === 'string') return [{ type: 'text', text: message.content }];
  const blocks: ContentBlockParam[] = [];
  for (const part of message.content) {
    switch (part.type) {
      case 'text':
        blocks.push({ type: 'text', text: part.text });
        break;
      case 'image': {
        if (isUrl(part.image)) {
          blocks.push({ type: 'image', source: { type: 'url', url: part.image } });
          break;
        }
        const { mediaType, data } = splitDataUrl(part.image, part.mediaType ?? 'image/png');
        const media_type = (imageTypes.find((type) => type === mediaType) ?? 'image/png') as ImageMediaType;
        blocks.push({ type: 'image', source: { type: 'base64', media_type, data } });
        break;
      }
      case 'file':
        blocks.push(
          isUrl(part.data)
            ? { type: 'document', source: { type: 'url', url: part.data } }
            : { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: splitDataUrl(part.data).data } },
        );
        break;
      case 'tool-call':
        blocks.push({ type: 'tool_use', id: part.toolCallId, name: part.toolName, input: part.input ?? {} });
        break;
      case 'tool-result':
        blocks.push({
          type: 'tool_result',
          tool_use_id: part.toolCallId,
          content: toolResultText(part.output),
          ...(part.output.type.startsWith('error') ? { is_error: true } : {}),
        });
        break;
      case 'reasoning':
        break;
    }
  }
  return blocks;
}

/**
 * Builds an Anthropic Messages request body: the system prompt (and system messages) as `system`,
 * tool results in user turns, consecutive turns of one role merged.
 */
export function buildAnthropicRequest(
  request: NeutralRequest & { readonly maxTokens?: number | undefined },
): MessageCreateParamsNonStreaming {
  const system = [request.system, ...request.messages.filter((message) => message.role === 'system').map((message) => message.content)]
    .filter((text): text is string => text !== undefined)
    .join('\n\n');
  const messages: MessageParam[] = [];
  for (const message of request.messages) {
    if (message.role === 'system') continue;
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = blocksOf(message);
    const previous = messages.at(-1);
    if (previous && previous.role === role && Array.isArray(previous.content)) previous.content.push(...blocks);
    else messages.push({ role, content: blocks });
  }
  const tools: Tool[] = (request.tools ?? []).map((tool) => ({
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    input_schema: { type: 'object', ...tool.inputSchema },
  }));
  return {
    model: request.model,
    max_tokens: request.maxTokens ?? 4096,
    messages,
    ...(system ? { system } : {}),
    ...(tools.length > 0 ? { tools } : {}),
  };
}
