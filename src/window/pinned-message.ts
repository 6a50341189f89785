import { SlidingContextError } from '../errors/sliding-context-error.js';
import type { EventMessage, Message, ModelMessage, SystemMessage } from '../message/message.js';
import { pinEvent } from '../message/pin-event.js';
import type { TokenCount } from '../tokens/token-counter.js';

/** A pin as a planner accounts for it: the message, its exchange, and what is sent when that exchange is out. */
export interface PinAccount {
  /** Index of the pinned message (after events). */
  readonly message: number;
  /** Index of its exchange; null for a message before the first exchange (a leading system message). */
  readonly exchange: number | null;
  /** The message as hoisted: a system message with its text, word for word. */
  readonly hoisted: ModelMessage;
  readonly hoistedCount: TokenCount;
}

/** True for a message that stands in the preamble for a pinned message whose exchange is out of the window. */
export function isHoistedPin(message: ModelMessage): boolean {
  return message.role === 'system' && message.providerOptions?.['sliding-context']?.hoistedPin === true;
}

/**
 * The text a pinned message is sent with when hoisted: a system message's content, or the text
 * parts of a user or assistant message joined by blank lines (reasoning is not sent). A tool call
 * or tool result is refused: hoisted alone it would be orphaned, and as text it would no longer be
 * the call the model made; so are images and files, which text cannot carry.
 * @throws SlidingContextError `INVALID_PIN` naming `where`
 */
export function pinnedText(message: ModelMessage, where: string): string {
  if (message.role === 'system' || typeof message.content === 'string') {
    if (message.content === '') throw new SlidingContextError('INVALID_PIN', `${where}: the ${message.role} message has no text to pin.`);
    return message.content as string;
  }
  const texts: string[] = [];
  for (const part of message.content) {
    if (part.type === 'text') texts.push(part.text);
    else if (part.type !== 'reasoning') {
      const what = part.type === 'tool-call' || part.type === 'tool-result' ? `a ${part.type} (${part.toolName}, ${part.toolCallId})` : `a ${part.type} part`;
      throw new SlidingContextError(
        'INVALID_PIN',
        `${where}: the ${message.role} message holds ${what}; only text can be pinned, since a pinned message is hoisted as text when its exchange leaves the window. Pin the user's request or the assistant's answer instead.`,
      );
    }
  }
  const text = texts.join('\n\n');
  if (text === '') throw new SlidingContextError('INVALID_PIN', `${where}: the ${message.role} message has no text to pin.`);
  return text;
}

/** What the window sends for a pinned message whose exchange is out: a system message with its text, word for word. */
export function hoistedPinMessage(message: ModelMessage, where: string): SystemMessage {
  if (isHoistedPin(message)) return message as SystemMessage;
  return { role: 'system', content: pinnedText(message, where), providerOptions: { 'sliding-context': { hoistedPin: true } } };
}

/**
 * Refuses a pin that leaves no room for the latest exchange: `floorTokens` is the fewest tokens
 * the request can take with it (preamble, every pin hoisted, the latest exchange), `before`
 * the same without it.
 * @throws SlidingContextError `PIN_OVER_BUDGET` naming the pin and the numbers
 */
export function requirePinRoom(pin: string, floor: { readonly before: number; readonly after: number; readonly budgetTokens: number }): void {
  const { before, after, budgetTokens } = floor;
  if (budgetTokens === 0 || after <= budgetTokens || after <= before) return;
  throw new SlidingContextError(
    'PIN_OVER_BUDGET',
    `Cannot pin ${pin}: it adds ${after - before} tokens, and the preamble, the pins and the latest exchange would then take ${after} tokens, over the budget of ${budgetTokens}; unpin another message or raise the budget.`,
  );
}

/**
 * The `pin` events that pin every model message of a batch, to store after it: each names its
 * message by how many model messages of the batch follow it.
 * @throws SlidingContextError `INVALID_PIN` for a message that cannot be pinned; `INVALID_OPTION` for a batch with a clear or rewind
 */
export function pinEventsFor(messages: readonly Message[]): EventMessage[] {
  const reset = messages.findIndex((message) => message.role === 'event' && (message.kind === 'clear' || message.kind === 'rewind'));
  if (reset !== -1) throw new SlidingContextError('INVALID_OPTION', `pinned: messages[${reset}] is a ${(messages[reset] as EventMessage).kind}; append it apart from the messages to pin.`);
  const models = messages.flatMap((message, index) => (message.role === 'event' ? [] : [{ message, index }]));
  return models.map(({ message, index }, position) => {
    pinnedText(message, `messages[${index}]`);
    return pinEvent('pin', models.length - 1 - position);
  });
}

/** True when one of `messages` carries `text` word for word (a system message's content, or the text parts of another). */
export function showsText(messages: readonly ModelMessage[], text: string): boolean {
  return messages.some((message) => {
    if (typeof message.content === 'string') return message.content.includes(text);
    const parts = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : []));
    return parts.join('\n\n').includes(text);
  });
}
