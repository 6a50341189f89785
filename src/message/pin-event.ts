import { z } from 'zod';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import type { EventMessage, Message } from './message.js';

/** What a `pin` or `unpin` event carries: how many model messages the history shows after its message. */
const pinDataSchema = z.object({ back: z.number().int().min(0) });

/** Kinds of the events that pin and unpin a message. */
export type PinEventKind = 'pin' | 'unpin';

/**
 * A `pin` (or `unpin`) event for the message the model sees `back` messages before the event:
 * 0 is the latest. Relative, so that it means the same wherever the history is replayed (a fork,
 * an export brought back).
 */
export function pinEvent(kind: PinEventKind, back: number): EventMessage {
  return { role: 'event', kind, data: { back } };
}

/** True for a `pin` or `unpin` event. */
export function isPinEvent(message: Message): message is EventMessage & { readonly kind: PinEventKind } {
  return message.role === 'event' && (message.kind === 'pin' || message.kind === 'unpin');
}

/**
 * The index, among the `visible` model messages shown before it, of the message a pin event names.
 * @throws SlidingContextError `INVALID_PIN` naming `where` when its data is not `{ back: n }` or names no message.
 */
export function pinEventTarget(message: EventMessage, visible: number, where: string): number {
  const parsed = pinDataSchema.safeParse(message.data);
  if (!parsed.success) {
    throw new SlidingContextError('INVALID_PIN', `${where}: a ${message.kind} event needs data { back: n }, n a whole number ≥ 0 (0 names the latest message); got ${message.data === undefined ? 'none' : JSON.stringify(message.data)}.`);
  }
  const index = visible - 1 - parsed.data.back;
  if (index < 0) {
    throw new SlidingContextError('INVALID_PIN', `${where}: the ${message.kind} event names the message ${parsed.data.back} before the latest, but the model sees only ${visible} message${visible === 1 ? '' : 's'} there.`);
  }
  return index;
}
