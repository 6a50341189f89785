import type { Message } from '../message/message.js';

/** An exchange: a user message and everything after it up to the next user message. */
export interface Exchange {
  /** Position among the exchanges, from 0. */
  readonly index: number;
  /** Index of the user message that starts it. */
  readonly firstMessage: number;
  /** Index of its last message, inclusive. */
  readonly lastMessage: number;
}

/**
 * True when a message opens a new exchange: a user message that carries no tool results.
 * A user message with tool results (Anthropic style) answers calls of the current exchange.
 */
export function startsExchange(message: Message): boolean {
  if (message.role !== 'user') return false;
  if (typeof message.content === 'string') return true;
  return !message.content.some((part) => part.type === 'tool-result');
}

/**
 * Splits messages into exchanges. Messages before the first user message are not part of any
 * exchange: leading system messages there are the pinned preamble.
 */
export function detectExchanges(messages: readonly Message[]): Exchange[] {
  const exchanges: Exchange[] = [];
  let start = -1;
  messages.forEach((message, index) => {
    if (!startsExchange(message)) return;
    if (start >= 0) {
      exchanges.push({ index: exchanges.length, firstMessage: start, lastMessage: index - 1 });
    }
    start = index;
  });
  if (start >= 0) {
    exchanges.push({
      index: exchanges.length,
      firstMessage: start,
      lastMessage: messages.length - 1,
    });
  }
  return exchanges;
}
