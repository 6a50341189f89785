import { SlidingContextError } from '../errors/sliding-context-error.js';
import { isModelMessage, type Message, type ModelMessage } from './message.js';

/** A mark that is still reachable: its label and how many model messages came before it. */
export interface ActiveMark {
  readonly label: string | undefined;
  readonly position: number;
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
  let visible: Item[] = [];
  let marks: ActiveMark[] = [];
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
        break;
      case 'mark':
        marks.push({ label: message.label, position: visible.length });
        break;
      case 'rewind': {
        const target = findRewindTarget(marks, message.label, `messages[${index}]`);
        const mark = marks[target] as ActiveMark;
        visible.length = mark.position;
        marks.length = target + 1;
        break;
      }
      default:
        break;
    }
  });
  return visible;
}
