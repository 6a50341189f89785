import { deepFreeze } from '../message/deep-freeze.js';
import type { ModelMessage } from '../message/message.js';

/**
 * Each message's wire elements as a builder converted them, kept as long as the message lives
 * and frozen: a conversation that builds request after request from one window converts each
 * message once, and its elements are the same objects from one body to the next (the proxy then
 * serializes each once, see `RequestBodyBytes`). One per conversation: its format's builder is
 * the only one that fills it. A body built with it must not be changed (its elements throw).
 */
export class ConvertedMessages {
  readonly #kept = new WeakMap<ModelMessage, readonly unknown[]>();

  /** `message`'s elements: those kept, else `convert`'s, kept (frozen) from now on. */
  of<Element>(message: ModelMessage, convert: (message: ModelMessage) => Element[]): readonly Element[] {
    const kept = this.#kept.get(message) as readonly Element[] | undefined;
    if (kept !== undefined) return kept;
    const elements = deepFreeze(convert(message));
    this.#kept.set(message, elements);
    return elements;
  }
}

/** The elements of `messages` in order, each message's from `converted` when given. */
export function convertEach<Element>(
  messages: readonly ModelMessage[],
  convert: (message: ModelMessage) => Element[],
  converted: ConvertedMessages | undefined,
): Element[] {
  if (converted === undefined) return messages.flatMap(convert);
  const elements: Element[] = [];
  for (const message of messages) for (const element of converted.of(message, convert)) elements.push(element);
  return elements;
}
