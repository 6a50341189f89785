import { SlidingContextError } from '../errors/sliding-context-error.js';
import type { Message, ModelMessage } from './message.js';

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
  let visible: ModelMessage[] = [];
  let marks: ActiveMark[] = [];
  history.forEach((message, index) => {
    if (message.role !== 'event') {
      visible.push(message);
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
