import { AIMessage, type BaseMessage, type ContentBlock, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { SlidingContextError } from '../../errors/sliding-context-error.js';
import { isRecord } from '../../message/is-record.js';
import type { AssistantMessage, ModelMessage, ToolResultOutput, UserMessage } from '../../message/message.js';

type UserPart = Exclude<UserMessage['content'], string>[number];
type AssistantPart = Exclude<AssistantMessage['content'], string>[number];

/** A standard content block as a user part: text, an image or a file; any other block kept as its JSON text. */
function userPart(block: ContentBlock.Standard): UserPart {
  if (block.type === 'text') return { type: 'text', text: block.text };
  if (block.type === 'image' || block.type === 'file' || block.type === 'audio') {
    const mediaType = typeof block.mimeType === 'string' ? block.mimeType : undefined;
    const source = typeof block.url === 'string' ? block.url : typeof block.data === 'string' ? block.data : undefined;
    if (source !== undefined && block.type === 'image') return { type: 'image', image: source, ...(mediaType ? { mediaType } : {}) };
    if (source !== undefined) return { type: 'file', data: source, mediaType: mediaType ?? 'application/octet-stream' };
  }
  return { type: 'text', text: JSON.stringify(block) };
}

/** The text of a tool message's content: a string as it is, text blocks joined, other blocks as JSON. */
function contentText(message: BaseMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.contentBlocks.map((block) => (block.type === 'text' ? block.text : JSON.stringify(block))).join('\n');
}

/** The neutral output of a tool message: its text, marked as an error when the tool failed. */
function toolOutput(message: ToolMessage): ToolResultOutput {
  const value = contentText(message);
  return message.status === 'error' ? { type: 'error-text', value } : { type: 'text', value };
}

/** The id a LangChain message carries, kept as sent. */
const withId = (message: BaseMessage) => (message.id === undefined ? {} : { id: message.id });

function assistantMessage(message: AIMessage, at: string): AssistantMessage {
  const parts: AssistantPart[] = [];
  const calls = message.tool_calls ?? [];
  for (const block of typeof message.content === 'string' ? [] : message.contentBlocks) {
    if (block.type === 'text' && block.text !== '') parts.push({ type: 'text', text: block.text });
    if (block.type === 'reasoning' && typeof block.reasoning === 'string' && block.reasoning !== '') parts.push({ type: 'reasoning', text: block.reasoning });
  }
  if (typeof message.content === 'string' && message.content !== '') parts.push({ type: 'text', text: message.content });
  calls.forEach((call, index) => {
    if (call.id === undefined || call.id === '') {
      throw new SlidingContextError('INVALID_MESSAGE', `${at}.tool_calls[${index}] (${call.name}) has no id; a tool call needs the id its ToolMessage answers.`);
    }
    parts.push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.args });
  });
  const [first] = parts;
  const onlyText = parts.length === 1 && first?.type === 'text' && typeof message.content === 'string';
  return { role: 'assistant', content: onlyText ? first.text : parts, ...withId(message) };
}

/**
 * Converts LangChain messages (system, human, AI with its `tool_calls`, tool with its
 * `tool_call_id`) to neutral messages, each keeping its id. A tool message is named after its
 * `name`, else after the call it answers.
 * @throws SlidingContextError `INVALID_MESSAGE` naming the message: a role the window cannot hold,
 * a tool call without an id
 */
export function convertFromLangChain(messages: readonly BaseMessage[], toolNames = new Map<string, string>(), path = 'messages'): ModelMessage[] {
  return messages.map((message, index): ModelMessage => {
    const at = `${path}[${index}]`;
    if (SystemMessage.isInstance(message)) return { role: 'system', content: contentText(message), ...withId(message) };
    if (HumanMessage.isInstance(message)) {
      const content = typeof message.content === 'string' ? message.content : message.contentBlocks.map(userPart);
      return { role: 'user', content, ...withId(message) };
    }
    if (AIMessage.isInstance(message)) {
      for (const call of message.tool_calls ?? []) if (call.id !== undefined) toolNames.set(call.id, call.name);
      return assistantMessage(message, at);
    }
    if (ToolMessage.isInstance(message)) {
      const toolName = message.name ?? toolNames.get(message.tool_call_id) ?? 'tool';
      return { role: 'tool', content: [{ type: 'tool-result', toolCallId: message.tool_call_id, toolName, output: toolOutput(message) }], ...withId(message) };
    }
    const type = isRecord(message) && typeof message.type === 'string' ? message.type : typeof message;
    throw new SlidingContextError('INVALID_MESSAGE', `${at} is a "${type}" message; the window holds system, human, AI and tool messages.`);
  });
}
