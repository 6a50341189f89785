import type { Message, ModelMessage } from '../message/message.js';
import { toolCallsOf } from './tool-parts.js';

/** What a person needs to recognise an exchange: the first words asked and the tools used. */
export interface ExchangeDescription {
  readonly title: string;
  /** Tool names with how often each was called, in first-use order. */
  readonly tools: ReadonlyMap<string, number>;
}

/** True for a NUL, or a surrogate left alone (a code point read from a string is one of a pair otherwise). */
function isUnstorable(character: string): boolean {
  const code = character.charCodeAt(0);
  return code === 0 || (character.length === 1 && code >= 0xd800 && code <= 0xdfff);
}

/** How many characters (code points) of the opening message an exchange's title keeps. */
export const TITLE_CHARACTERS = 200;

/**
 * The title of an exchange that starts with `message`: its text, with `[image]`-style markers for
 * other parts, clipped to {@link TITLE_CHARACTERS} code points, a NUL or a lone surrogate shown as
 * U+FFFD (a text column holds neither). The store keeps the same title beside each exchange
 * start, so a history can be shown without reading message bodies.
 */
export function exchangeTitle(message: Message | undefined): string {
  if (!message || message.role === 'tool' || message.role === 'event') return '';
  const text = typeof message.content === 'string'
    ? message.content
    : message.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join(' ');
  let title = '';
  let characters = 0;
  for (const character of text) {
    if (characters++ === TITLE_CHARACTERS) break;
    title += isUnstorable(character) ? '\ufffd' : character;
  }
  return title;
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
  return { title: exchangeTitle(messages[firstMessage]), tools };
}
