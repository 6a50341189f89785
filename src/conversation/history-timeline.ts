import type { TimelineEntry, TimelineFork } from './conversation-store.js';
import type { SummaryEvent } from './summary-events.js';
import type { ExchangeHistory } from './exchange-history.js';
import type { TurnCacheUsage } from './prompt-cache.js';

/** Why an exchange is out of the window: the budget evicted it, the summary stands for it, a clear or a rewind took it out. */
export type OutOfWindowReason = 'evicted' | 'summarized' | 'cleared' | 'rewound';

/** An exchange as a row of the history timeline. */
export interface TimelineExchangeRow {
  readonly type: 'exchange';
  /** Its number in the planned history (as `history --json` `exchanges` has it); null when a clear or rewind hid it. */
  readonly index: number | null;
  readonly title: string;
  readonly tools: readonly string[];
  /** For a planned exchange its count for the model; for a hidden one the stored counts' sum. */
  readonly tokens: number;
  readonly inWindow: boolean;
  readonly pinned: boolean;
  readonly outOfWindow: OutOfWindowReason | null;
  readonly agentId: string;
  readonly firstSeq: number;
  readonly createdAt: Date;
  /** What the provider's prompt cache did for its turns (when recorded). */
  readonly cache?: TurnCacheUsage | undefined;
}

/** An event as a row of the history timeline: a clear, mark, rewind, fork, summary, or uncompact. */
export interface TimelineEventRow {
  readonly type: 'event';
  readonly kind: 'clear' | 'mark' | 'rewind' | 'fork' | 'summary' | 'uncompact';
  /** The mark's label; for a summary or uncompact, the summarizer's name. */
  readonly label: string | null;
  /** Where it is stored (for a fork: the parent and the seq it forked at; for a summary or uncompact: the summary's last message). */
  readonly agentId: string;
  readonly seq: number;
  readonly createdAt: Date;
  /** For a fork: the child, and whether it is the agent shown (forked from its parent) or a fork of it. */
  readonly fork?: { readonly childId: string; readonly childName: string | null; readonly direction: 'from-parent' | 'child' } | undefined;
  /** For a clear or rewind: how many exchanges it took out of the window. */
  readonly tookOut?: number | undefined;
  /** For a summary, and for the uncompact that set one aside: the exchanges it covers, and whether an uncompact set it aside. */
  readonly summary?: { readonly coveredExchanges: number; readonly undone: boolean } | undefined;
}

/** One row of the history timeline. */
export type TimelineRow = TimelineExchangeRow | TimelineEventRow;

const EVENT_KINDS = new Set(['clear', 'mark', 'rewind']);
/** Events the timeline does not list as rows (the pins are listed apart). */
const OTHER_EVENT_KINDS = new Set(['fork', 'command', 'agent-killed', 'pin', 'unpin']);

/**
 * The history as it happened: every exchange of the path (planned ones with their window status,
 * those a clear or rewind hid marked so) and the clears, marks, rewinds, forks, summaries and
 * uncompacts, in order (a summary and an uncompact where they were recorded, by time).
 * `exchanges` is the planned history of what the model sees now.
 */
export function buildHistoryTimeline(
  agentId: string,
  entries: readonly TimelineEntry[],
  forks: readonly TimelineFork[],
  exchanges: readonly ExchangeHistory[],
  summaries: readonly SummaryEvent[] = [],
): TimelineRow[] {
  // By agent, then by seq: no key string is made for each exchange of a long history.
  const planned = new Map<string, Map<number, ExchangeHistory>>();
  for (const exchange of exchanges) {
    let ofAgent = planned.get(exchange.agentId);
    if (ofAgent === undefined) {
      ofAgent = new Map<number, ExchangeHistory>();
      planned.set(exchange.agentId, ofAgent);
    }
    ofAgent.set(exchange.firstSeq, exchange);
  }
  const hidden = hiddenReasons(entries);
  const rows: TimelineRow[] = [];
  const forksAt = new Map<string, TimelineFork[]>();
  for (const fork of forks) forksAt.set(`${fork.parentId}:${fork.seq}`, [...(forksAt.get(`${fork.parentId}:${fork.seq}`) ?? []), fork]);
  let current: { row: TimelineExchangeRow; tokens: number } | undefined;
  const close = () => {
    if (current) rows.push({ ...current.row, tokens: current.row.index === null ? current.tokens : current.row.tokens });
    current = undefined;
  };
  const pushForks = (parentId: string, seq: number) => {
    // Most histories have few forks or none: no key is made for each row then.
    if (forksAt.size === 0) return;
    const here = forksAt.get(`${parentId}:${seq}`) ?? [];
    // A fork comes after the exchange it forked at the end of.
    if (here.length > 0) close();
    for (const fork of here) {
      const direction = fork.childId === agentId || fork.parentId !== agentId ? 'from-parent' : 'child';
      rows.push({ type: 'event', kind: 'fork', label: fork.childName, agentId: fork.parentId, seq: fork.seq, createdAt: fork.createdAt, fork: { childId: fork.childId, childName: fork.childName, direction } });
    }
    forksAt.delete(`${parentId}:${seq}`);
  };
  entries.forEach((entry, position) => {
    if (position === 0) pushForks(entry.agentId, entry.seq - 1);
    if (EVENT_KINDS.has(entry.kind)) {
      close();
      rows.push({ type: 'event', kind: entry.kind as 'clear' | 'mark' | 'rewind', label: entry.label, agentId: entry.agentId, seq: entry.seq, createdAt: entry.createdAt });
    } else if (entry.startsExchange) {
      close();
      const plan = planned.get(entry.agentId)?.get(entry.seq);
      const reason = hidden.get(position);
      current = {
        tokens: entry.tokens ?? 0,
        row: plan && reason === undefined
          ? {
              type: 'exchange', index: plan.index, title: plan.title, tools: plan.tools, tokens: plan.tokens, inWindow: plan.inWindow, pinned: plan.pinned,
              outOfWindow: plan.inWindow ? null : plan.summarized ? 'summarized' : 'evicted', agentId: entry.agentId, firstSeq: entry.seq, createdAt: entry.createdAt,
              ...(plan.cache ? { cache: plan.cache } : {}),
            }
          : {
              type: 'exchange', index: null, title: entry.title ?? '', tools: [...new Set(entry.toolNames)], tokens: 0, inWindow: false, pinned: false,
              // A start the plan does not know and no event hid: left out by planning (none today).
              outOfWindow: reason ?? 'evicted', agentId: entry.agentId, firstSeq: entry.seq, createdAt: entry.createdAt,
            },
      };
    } else if (current && entry.kind !== 'system') {
      current.tokens += entry.tokens ?? 0;
      if (current.row.index === null) current.row = { ...current.row, tools: [...new Set([...current.row.tools, ...entry.toolNames])] };
    }
    pushForks(entry.agentId, entry.seq);
  });
  close();
  for (const rest of forksAt.values()) for (const fork of rest) pushForks(fork.parentId, fork.seq);
  return countTookOut(withSummaryEvents(rows, summaries));
}

/** The rows with each summary and uncompact placed after the rows that began before it was recorded. */
function withSummaryEvents(rows: readonly TimelineRow[], summaries: readonly SummaryEvent[]): TimelineRow[] {
  if (summaries.length === 0) return [...rows];
  const pending = [...summaries].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  const merged: TimelineRow[] = [];
  const eventRow = (event: SummaryEvent): TimelineEventRow => ({
    type: 'event', kind: event.kind, label: event.summarizer, agentId: event.agentId, seq: event.seq, createdAt: event.createdAt,
    summary: { coveredExchanges: event.coveredExchanges, undone: event.undone },
  });
  for (const row of rows) {
    while (pending.length > 0 && (pending[0] as SummaryEvent).createdAt < row.createdAt) merged.push(eventRow(pending.shift() as SummaryEvent));
    merged.push(row);
  }
  for (const event of pending) merged.push(eventRow(event));
  return merged;
}

/** Each clear and rewind with how many exchanges it hid: those marked so, back to the previous such event. */
function countTookOut(rows: readonly TimelineRow[]): TimelineRow[] {
  return rows.map((row, index) => {
    if (row.type !== 'event' || (row.kind !== 'clear' && row.kind !== 'rewind')) return row;
    const reason = row.kind === 'clear' ? 'cleared' : 'rewound';
    let tookOut = 0;
    for (let before = index - 1; before >= 0; before--) {
      const earlier = rows[before];
      if (earlier?.type === 'event' && (earlier.kind === 'clear' || (earlier.kind === 'rewind' && reason === 'rewound'))) break;
      if (earlier?.type === 'exchange' && earlier.outOfWindow === reason) tookOut++;
    }
    return { ...row, tookOut };
  });
}

/**
 * Replays the events over the entries: for each model message a clear or rewind took out of
 * what the model sees, the first reason it was taken out.
 */
function hiddenReasons(entries: readonly TimelineEntry[]): Map<number, 'cleared' | 'rewound'> {
  const reasons = new Map<number, 'cleared' | 'rewound'>();
  let visible: number[] = [];
  let marks: { label: string | null; position: number }[] = [];
  entries.forEach((entry, position) => {
    if (entry.kind === 'clear') {
      for (const index of visible) reasons.set(index, 'cleared');
      visible = [];
      marks = [];
    } else if (entry.kind === 'mark') {
      marks.push({ label: entry.label, position: visible.length });
    } else if (entry.kind === 'rewind') {
      let target = -1;
      for (let index = marks.length - 1; index >= 0; index--) {
        if (entry.label === null || marks[index]?.label === entry.label) {
          target = index;
          break;
        }
      }
      // A rewind the store accepted always has its mark; one without is left as it stands.
      if (target === -1) return;
      const mark = marks[target] as { position: number };
      for (const index of visible.slice(mark.position)) reasons.set(index, 'rewound');
      visible = visible.slice(0, mark.position);
      marks = marks.slice(0, target + 1);
    } else if (!EVENT_KINDS.has(entry.kind) && !OTHER_EVENT_KINDS.has(entry.kind)) {
      visible.push(position);
    }
  });
  return reasons;
}

/** The rows `history` shows by default: from after the clear before the latest one (what the latest clear took out stays listed). */
export function recentTimelineRows(rows: readonly TimelineRow[]): { rows: TimelineRow[]; earlier: number } {
  const clears = rows.flatMap((row, index) => (row.type === 'event' && row.kind === 'clear' ? [index] : []));
  const start = clears.length >= 2 ? (clears.at(-2) as number) + 1 : 0;
  return { rows: rows.slice(start), earlier: start };
}
