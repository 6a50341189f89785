import type { TimelineEntry } from './conversation-store.js';

/** A mark a rewind can reach: its label, where it is stored, when, and how many exchanges come before it. */
export interface ReachableMark {
  readonly label: string | null;
  readonly agentId: string;
  readonly seq: number;
  readonly createdAt: Date;
  /** Exchanges the model sees before the mark: a rewind to it keeps #0 to #(exchange − 1), and the next exchange is #exchange. */
  readonly exchange: number;
}

/**
 * The marks a rewind can reach after the entries' events are played: a clear drops every mark,
 * a rewind drops the marks after the one it returns to. Oldest first.
 */
export function reachableMarks(entries: readonly TimelineEntry[]): ReachableMark[] {
  let exchanges = 0;
  let marks: ReachableMark[] = [];
  for (const entry of entries) {
    if (entry.kind === 'clear') {
      exchanges = 0;
      marks = [];
    } else if (entry.kind === 'mark') {
      marks.push({ label: entry.label, agentId: entry.agentId, seq: entry.seq, createdAt: entry.createdAt, exchange: exchanges });
    } else if (entry.kind === 'rewind') {
      const target = marks.findLastIndex((mark) => entry.label === null || mark.label === entry.label);
      if (target === -1) continue;
      exchanges = (marks[target] as ReachableMark).exchange;
      marks = marks.slice(0, target + 1);
    } else if (entry.startsExchange) {
      exchanges++;
    }
  }
  return marks;
}
