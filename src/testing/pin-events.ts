import fc from 'fast-check';
import { applyEvents } from '../message/apply-events.js';
import type { Message, ModelMessage } from '../message/message.js';
import { pinEvent } from '../message/pin-event.js';
import { pinnedText } from '../window/pinned-message.js';

/** Where to insert a pin or unpin event, and which pinnable message it names (both taken modulo what is there). */
export interface PinChoice {
  readonly at: number;
  readonly pick: number;
  readonly unpin: boolean;
}

/** Up to five pin or unpin events to add to a history. */
export const pinChoicesArbitrary: fc.Arbitrary<PinChoice[]> = fc.array(fc.record({ at: fc.nat(), pick: fc.nat(), unpin: fc.boolean() }), { maxLength: 5 });

/** True for a message that can be pinned (text only). */
export function isPinnable(message: ModelMessage): boolean {
  try {
    pinnedText(message, '');
    return true;
  } catch {
    return false;
  }
}

/** The history with pin and unpin events inserted, each naming a pinnable message the model sees where it is inserted. */
export function withPinEvents(history: readonly Message[], choices: readonly PinChoice[]): Message[] {
  let result = [...history];
  for (const choice of choices) {
    const at = choice.at % (result.length + 1);
    const visible = applyEvents(result.slice(0, at));
    const pinnable = visible.flatMap((message, index) => (isPinnable(message) ? [index] : []));
    const index = pinnable[choice.pick % Math.max(1, pinnable.length)];
    if (index === undefined) continue;
    result = [...result.slice(0, at), pinEvent(choice.unpin ? 'unpin' : 'pin', visible.length - 1 - index), ...result.slice(at)];
  }
  return result;
}
