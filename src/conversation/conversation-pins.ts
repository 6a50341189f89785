import { SlidingContextError } from '../errors/sliding-context-error.js';
import { replayEvents } from '../message/apply-events.js';
import type { EventMessage, ModelMessage } from '../message/message.js';
import { pinEvent, type PinEventKind } from '../message/pin-event.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { hoistedPinMessage, pinnedText, requirePinRoom } from '../window/pinned-message.js';
import type { WindowState } from '../window/window-state.js';
import type { ConversationStore, MessagePosition } from './conversation-store.js';
import { indexOfPosition } from './kept-cut.js';

/** What pinning or unpinning a stored message reads and checks. */
export interface PinChangeInput {
  readonly store: ConversationStore;
  readonly agentId: string;
  /** The window now, and where each of its messages is stored: a pin is tried on it. */
  readonly state: WindowState;
  readonly positions: readonly (MessagePosition | undefined)[];
  readonly budgetTokens: number;
  readonly counter: TokenCounter;
  readonly target: { readonly provider: string; readonly model: string };
}

/**
 * The event that pins (or unpins) the stored message at `position`, checked first: the model
 * must see it, a pin must be of text (see `pinnedText`) and leave room for the latest exchange,
 * an unpin must be of a pinned message. Undefined when it is pinned already. A pin is tried on
 * `state`, which must be loaded again after.
 * @throws SlidingContextError `INVALID_PIN` or `PIN_OVER_BUDGET`, naming the message
 */
export async function pinChange(kind: PinEventKind, position: MessagePosition, input: PinChangeInput): Promise<EventMessage | undefined> {
  const replayed = replayEvents(await input.store.history(input.agentId), (entry) => entry.message);
  const index = replayed.visible.findIndex((entry) => entry.agentId === position.agentId && entry.seq === position.seq);
  const name = `seq ${position.seq}${position.agentId === input.agentId ? '' : ` of ${position.agentId}`}`;
  if (index === -1) {
    throw new SlidingContextError('INVALID_PIN', `Cannot ${kind} ${name} for agent ${input.agentId}: the model sees no message there (an event, a seq not stored, or one a clear or rewind hid).`);
  }
  const pinned = replayed.pins.includes(index);
  const event = pinEvent(kind, replayed.visible.length - 1 - index);
  if (kind === 'unpin') {
    if (!pinned) throw new SlidingContextError('INVALID_PIN', `Cannot unpin ${name} for agent ${input.agentId}: it is not pinned.`);
    return event;
  }
  if (pinned) return undefined;
  const message = replayed.visible[index]?.message as ModelMessage;
  pinnedText(message, `Cannot pin ${name} for agent ${input.agentId}`);
  const before = input.state.plan().floorTokens;
  const held = indexOfPosition(input.positions, position);
  let after: number;
  if (held === -1) {
    // Not in the window state (read only in part, or summarized): it would be hoisted.
    after = before + input.counter.countMessage({ ...input.target, message: hoistedPinMessage(message, name) }).tokens;
  } else {
    input.state.pin(held);
    after = input.state.plan().floorTokens;
  }
  requirePinRoom(`${name} for agent ${input.agentId}`, { before, after, budgetTokens: input.budgetTokens });
  return event;
}

/** The pinned messages a window holds, with where they are stored (`positionOf` its index) and their text. */
export function pinTexts(state: WindowState, positionOf: (index: number) => MessagePosition | undefined): { agentId: string; seq: number; text: string }[] {
  return state.pins.flatMap((index) => {
    const at = positionOf(index);
    const message = state.messageAt(index);
    return at && message ? [{ agentId: at.agentId, seq: at.seq, text: pinnedText(message, `message ${index}`) }] : [];
  });
}
