import { AIMessage, type BaseMessage, type ContentBlock, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { isRecord } from '../../message/is-record.js';
import type { ModelMessage, ToolResultPart, UserMessage } from '../../message/message.js';
import { toolOutputText } from '../../message/tool-output-text.js';

type UserPart = Exclude<UserMessage['content'], string>[number];

/** A data URL for base64 data, a URL as it is. */
const sourceUrl = (source: string, mediaType: string | undefined) =>
  /^(https?:|data:)/i.test(source) ? source : `data:${mediaType ?? 'application/octet-stream'};base64,${source}`;

function toolMessage(part: ToolResultPart, id: string | undefined): ToolMessage {
  const failed = part.output.type === 'error-text' || part.output.type === 'error-json';
  return new ToolMessage({
    content: toolOutputText(part.output),
    tool_call_id: part.toolCallId,
    name: part.toolName,
    ...(failed ? { status: 'error' as const } : {}),
    ...(id === undefined ? {} : { id }),
  });
}

function humanBlock(part: Exclude<UserPart, ToolResultPart>): ContentBlock {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image':
      return { type: 'image_url', image_url: { url: sourceUrl(part.image, part.mediaType) } };
    case 'file':
      return { type: 'file', url: sourceUrl(part.data, part.mediaType), mimeType: part.mediaType };
  }
}

/**
 * Converts neutral messages to LangChain messages, each with the id it was stored with: tool
 * results as one `ToolMessage` each, tool calls as the AI message's `tool_calls`, reasoning left
 * out (a provider takes it back only in its own signed form).
 */
export function convertToLangChain(messages: readonly ModelMessage[]): BaseMessage[] {
  return messages.flatMap((message): BaseMessage[] => {
    const id = message.id;
    const withId = id === undefined ? {} : { id };
    switch (message.role) {
      case 'system':
        return [new SystemMessage({ content: message.content, ...withId })];
      case 'user': {
        if (typeof message.content === 'string') return [new HumanMessage({ content: message.content, ...withId })];
        const results = message.content.filter((part) => part.type === 'tool-result').map((part, index) => toolMessage(part, index === 0 ? id : undefined));
        const blocks = message.content.filter((part) => part.type !== 'tool-result').map(humanBlock);
        return blocks.length > 0 ? [...results, new HumanMessage({ content: blocks, ...(results.length > 0 ? {} : withId) })] : results;
      }
      case 'assistant': {
        if (typeof message.content === 'string') return [new AIMessage({ content: message.content, ...withId })];
        const text = message.content.filter((part) => part.type === 'text').map((part) => part.text).join('');
        const toolCalls = message.content
          .filter((part) => part.type === 'tool-call')
          .map((part) => ({ id: part.toolCallId, name: part.toolName, args: isRecord(part.input) ? part.input : {}, type: 'tool_call' as const }));
        const results = message.content.filter((part) => part.type === 'tool-result').map((part) => toolMessage(part, undefined));
        return [new AIMessage({ content: text, tool_calls: toolCalls, ...withId }), ...results];
      }
      case 'tool':
        return message.content.map((part, index) => toolMessage(part, index === 0 ? id : undefined));
    }
  });
}
