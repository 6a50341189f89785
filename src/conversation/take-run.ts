import { findRewindTarget } from '../message/apply-events.js';
import type { Message, ModelMessage } from '../message/message.js';
import type { TokenCount } from '../tokens/token-counter.js';
import type { WindowState } from '../window/window-state.js';

/**
 * A batch split into the runs stored one transaction each: every rewind ends a run, since what
 * follows it is checked against the rewound window.
 */
export function runsEndingAtRewinds(messages: readonly Message[]): Message[][] {
  const runs: Message[][] = [[]];
  for (const message of messages) {
    runs.at(-1)?.push(message);
    if (message.role === 'event' && message.kind === 'rewind') runs.push([]);
  }
  return runs.filter((run) => run.length > 0);
}

/** What a run did to the window before it is stored. */
export interface TakenRun {
  /** Each message's count (null for an event), stored with it. */
  readonly counts: (TokenCount | null)[];
  /** The labels a rewind can reach after the run. */
  readonly marks: (string | undefined)[];
  /** True when the run ends with a rewind: the window is then loaded again. */
  readonly rewound: boolean;
}

/**
 * Takes a run into the window state, message by message: one that would break the conversation,
 * or a rewind to no reachable mark, throws before anything is stored.
 */
export function takeRun(
  state: WindowState,
  marksBefore: readonly (string | undefined)[],
  run: readonly Message[],
  count: (message: ModelMessage) => TokenCount,
): TakenRun {
  const marks = [...marksBefore];
  const counts: (TokenCount | null)[] = [];
  let rewound = false;
  for (const [index, message] of run.entries()) {
    counts.push(message.role === 'event' ? null : count(message));
    if (message.role !== 'event') state.append([message]);
    else if (message.kind === 'clear') {
      state.append([message]);
      marks.length = 0;
    } else if (message.kind === 'mark') marks.push(message.label);
    else if (message.kind === 'pin' || message.kind === 'unpin') state.append([message]);
    else if (message.kind === 'rewind') {
      marks.length = findRewindTarget(marks.map((label) => ({ label, position: 0 })), message.label, `messages[${index}]`) + 1;
      rewound = true;
    }
  }
  return { counts, marks, rewound };
}
