import { SlidingContextError } from '../errors/sliding-context-error.js';
import { isModelMessage, type Message, type ModelMessage } from './message.js';
import { pinEventTarget } from './pin-event.js';

/**
 * A mark that is still reachable: its label, how many model messages came before it and, where
 * pins are followed, the messages pinned when it was set (a rewind to it restores them).
 */
export interface ActiveMark {
  readonly label: string | undefined;
  readonly position: number;
  readonly pins?: readonly number[] | undefined;
}

/** What replaying a history's events gives: the items the model sees, and which of them are pinned. */
export interface ReplayedHistory<Item> {
  readonly visible: Item[];
  /** Indices into `visible` of the pinned messages, in order. */
  readonly pins: number[];
}

/**
 * Finds the mark a rewind returns to: the latest mark with that label, or the latest mark of all
 * when the rewind has no label.
 * @throws SlidingContextError `UNKNOWN_MARK` naming the label.
 */
export function findRewindTarget(
  marks: readonly ActiveMark[],
  label: string | undefined,
  where: string,
): number {
  for (let index = marks.length - 1; index >= 0; index--) {
    const mark = marks[index];
    if (mark && (label === undefined || mark.label === label)) return index;
  }
  const name = label === undefined ? 'any mark (the rewind has no label)' : `mark "${label}"`;
  throw new SlidingContextError(
    'UNKNOWN_MARK',
    `${where}: cannot rewind to ${name}: no such mark is reachable (it was never set, or a clear or an earlier rewind removed it).`,
  );
}

/**
 * Gives the conversation the model should see: `clear` drops everything before it, `rewind`
 * drops everything between its mark and itself, and events themselves never appear.
 * @throws SlidingContextError `UNKNOWN_MARK` when a rewind names a mark that is not reachable.
 */
export function applyEvents(history: readonly Message[]): ModelMessage[] {
  return applyEventsTo(history, (message) => message).filter(isModelMessage);
}

/**
 * `applyEvents` over any items that carry a message (stored rows, say): returns the items whose
 * messages the model sees, in order.
 */
export function applyEventsTo<Item>(history: readonly Item[], messageOf: (item: Item) => Message): Item[] {
  return replayEvents(history, messageOf).visible;
}

/**
 * {@link applyEventsTo}, with the pins in force: a `pin` adds its message, an `unpin` takes it
 * away, a `clear` drops them all, and a `rewind` restores those of its mark's time (pins and
 * unpins after the mark are undone, as the messages are).
 * @throws SlidingContextError `UNKNOWN_MARK` for a rewind to no reachable mark, `INVALID_PIN` for a pin that names no message.
 */
export function replayEvents<Item>(history: readonly Item[], messageOf: (item: Item) => Message): ReplayedHistory<Item> {
  let visible: Item[] = [];
  let marks: ActiveMark[] = [];
  let pins = new Set<number>();
  history.forEach((item, index) => {
    const message = messageOf(item);
    if (message.role !== 'event') {
      visible.push(item);
      return;
    }
    switch (message.kind) {
      case 'clear':
        visible = [];
        marks = [];
        pins = new Set();
        break;
      case 'mark':
        marks.push({ label: message.label, position: visible.length, pins: [...pins] });
        break;
      case 'rewind': {
        const target = findRewindTarget(marks, message.label, `messages[${index}]`);
        const mark = marks[target] as ActiveMark;
        visible.length = mark.position;
        marks.length = target + 1;
        pins = new Set(mark.pins);
        break;
      }
      case 'pin':
      case 'unpin': {
        const pinned = pinEventTarget(message, visible.length, `messages[${index}]`);
        if (message.kind === 'pin') pins.add(pinned);
        else pins.delete(pinned);
        break;
      }
      default:
        break;
    }
  });
  return { visible, pins: [...pins].sort((a, b) => a - b) };
}
