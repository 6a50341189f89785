import { type ActiveMark, findRewindTarget } from '../message/apply-events.js';
import type { Message } from '../message/message.js';

/** The previous cut as it stands in the history now. */
export interface FollowedCut {
  /** The previous cutoff message, when it still names the same place; else undefined. */
  readonly cutoff: number | undefined;
  /** True when a rewind or clear since the previous plan removed the message before the cut. */
  readonly dropped: boolean;
  /** Leading messages (after events) the previous plan's history and this one share; undefined when unknown. */
  readonly sharedMessages: number | undefined;
}

/**
 * Follows the previous cut through the messages appended since the previous plan: `history` is
 * the whole history, events included, and the previous plan was made over its first
 * `previousMessageCount` entries. A message index names the same message only while no rewind
 * or clear has gone back past it; a cut whose last evicted message is gone is dropped. Without
 * `previousMessageCount` only a cut past the end of the visible history is known to be gone.
 */
export function followPreviousCut(
  history: readonly Message[],
  visibleLength: number,
  previousCutoff: number | null | undefined,
  previousMessageCount: number | undefined,
): FollowedCut {
  const cutoff = previousCutoff ?? undefined;
  if (previousMessageCount === undefined) {
    const gone = cutoff !== undefined && cutoff > visibleLength;
    return { cutoff: gone ? undefined : cutoff, dropped: gone, sharedMessages: undefined };
  }
  let length = 0;
  let marks: ActiveMark[] = [];
  let lengthThen = 0;
  let keptSince = Number.POSITIVE_INFINITY;
  history.forEach((message, index) => {
    if (index === previousMessageCount) lengthThen = length;
    if (message.role !== 'event') {
      length++;
      return;
    }
    if (message.kind === 'clear') {
      length = 0;
      marks = [];
    } else if (message.kind === 'mark') marks.push({ label: message.label, position: length });
    else if (message.kind === 'rewind') {
      const target = findRewindTarget(marks, message.label, `messages[${index}]`);
      length = Math.min(length, (marks[target] as ActiveMark).position);
      marks.length = target + 1;
    }
    if (index >= previousMessageCount) keptSince = Math.min(keptSince, length);
  });
  if (previousMessageCount >= history.length) lengthThen = length;
  const dropped = cutoff !== undefined && cutoff > keptSince;
  return { cutoff: dropped ? undefined : cutoff, dropped, sharedMessages: Math.min(lengthThen, keptSince) };
}
