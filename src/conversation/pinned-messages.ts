import { replayEvents } from '../message/apply-events.js';
import type { ModelMessage } from '../message/message.js';
import { hoistedPinMessage } from '../window/pinned-message.js';
import type { ConversationStore, MessagePosition, StoredMessage } from './conversation-store.js';
import { indexOfPosition } from './kept-cut.js';

/** The messages pinned in what an agent's model sees, in order, with where they are stored. */
export async function pinnedMessages(store: ConversationStore, agentId: string): Promise<StoredMessage[]> {
  const replayed = replayEvents(await store.history(agentId), (entry) => entry.message);
  return replayed.pins.map((index) => replayed.visible[index] as StoredMessage);
}

/** A window's messages with the pins placed. */
export interface PlacedPins<Position extends MessagePosition> {
  readonly messages: ModelMessage[];
  /** Where each message is stored; undefined for the summary and the pins hoisted after it. */
  readonly positions: (Position | undefined)[];
  /** Each pin: the index in `messages` to pin, and where the pinned message is stored. */
  readonly pins: { readonly index: number; readonly at: MessagePosition }[];
}

/**
 * Places the pins in a window's messages (`positions` run parallel to them; the summary, if any,
 * at `summaryAt`, else −1): a pin the window holds is pinned where it is; one the summary covers
 * is hoisted right after the summary, as a system message with its text word for word, since
 * the model must see it whatever the summary kept.
 */
export function placePins<Position extends MessagePosition>(
  messages: readonly ModelMessage[],
  positions: readonly (Position | undefined)[],
  pinned: readonly StoredMessage[],
  summaryAt: number,
): PlacedPins<Position> {
  const covered = summaryAt === -1 ? [] : pinned.filter((pin) => indexOfPosition(positions, pin) === -1);
  const hoisted = covered.map((pin) => hoistedPinMessage(pin.message as ModelMessage, `pinned message ${pin.agentId} seq ${pin.seq}`));
  const at = summaryAt + 1;
  const placedPositions = [...positions.slice(0, at), ...hoisted.map(() => undefined), ...positions.slice(at)];
  const pins = pinned.flatMap((pin) => {
    const held = indexOfPosition(placedPositions, pin);
    const index = held !== -1 ? held : at + covered.indexOf(pin);
    return held === -1 && !covered.includes(pin) ? [] : [{ index, at: { agentId: pin.agentId, seq: pin.seq } }];
  });
  return { messages: [...messages.slice(0, at), ...hoisted, ...messages.slice(at)], positions: placedPositions, pins: pins.sort((a, b) => a.index - b.index) };
}
