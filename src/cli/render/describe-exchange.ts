import { toolCallsOf } from '../../exchange/tool-parts.js';
import type { ModelMessage } from '../../message/message.js';

/** What a person needs to recognise an exchange: the first words asked and the tools used. */
export interface ExchangeDescription {
  readonly title: string;
  /** Tool names with how often each was called, in first-use order. */
  readonly tools: ReadonlyMap<string, number>;
}

/** Clips text to at most `width` characters on one line, marking the cut with `…`. */
export function clipText(text: string, width: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= width ? line : `${line.slice(0, Math.max(0, width - 1)).trimEnd()}…`;
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

/** `read_file×3, run_command` */
export function formatToolUse(tools: ReadonlyMap<string, number>): string {
  return [...tools].map(([name, count]) => (count > 1 ? `${name}×${count}` : name)).join(', ');
}
