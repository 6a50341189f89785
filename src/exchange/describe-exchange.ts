import type { ModelMessage } from '../message/message.js';
import { toolCallsOf } from './tool-parts.js';

/** What a person needs to recognise an exchange: the first words asked and the tools used. */
export interface ExchangeDescription {
  readonly title: string;
  /** Tool names with how often each was called, in first-use order. */
  readonly tools: ReadonlyMap<string, number>;
}

function textOf(message: ModelMessage | undefined): string {
  if (!message || message.role === 'tool') return '';
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((part) => (part.type === 'text' ? part.text : `[${part.type}]`))
    .join(' ');
}

/** Describes `messages[firstMessage..lastMessage]`. */
export function describeExchange(
  messages: readonly ModelMessage[],
  firstMessage: number,
  lastMessage: number,
): ExchangeDescription {
  const tools = new Map<string, number>();
  for (let index = firstMessage; index <= lastMessage; index++) {
    const message = messages[index];
    if (!message) continue;
    for (const { part } of toolCallsOf(message)) {
      tools.set(part.toolName, (tools.get(part.toolName) ?? 0) + 1);
    }
  }
  return { title: textOf(messages[firstMessage]), tools };
}
