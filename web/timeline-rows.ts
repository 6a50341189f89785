import type { SummaryJson, TimelineWindowJson } from './web-data.js';

/** An exchange as the timeline draws it. */
export interface ExchangeView {
  readonly index: number | null;
  readonly title: string;
  readonly tools: readonly string[];
  readonly tokens: number;
  readonly state: string;
  readonly agentId: string;
  readonly firstSeq: number;
}

/** A row of the timeline as stored: an exchange or an event. */
export type TimelineRowView =
  | { readonly type: 'exchange'; readonly exchange: ExchangeView; readonly clearedOutputs: number; readonly throughSeq: number | null }
  | { readonly type: 'event'; readonly kind: string; readonly label: string };

/** A row of the timeline as the page draws it. */
export type DisplayRow =
  | TimelineRowView
  | { readonly type: 'summary'; readonly summary: SummaryJson }
  | { readonly type: 'cutoff' };

/**
 * The rows of one `/timeline?count=` answer, as the page draws them: each exchange with the
 * agent it names and the last seq of its messages (the next stored row of the same agent, an
 * exchange or an event but a fork, bounds them; after the answer's rows, its `nextSeqs` say).
 */
export function windowRows(answer: TimelineWindowJson): TimelineRowView[] {
  const source = answer.rows;
  const nextSeq = new Array<number | null>(source.length).fill(null);
  const seen = new Map<number, number>();
  answer.nextSeqs.forEach((seq, agent) => {
    if (seq !== null) seen.set(agent, seq);
  });
  for (let position = source.length - 1; position >= 0; position--) {
    const row = source[position];
    if (!row) continue;
    const agent = row[0] === 0 ? row[6] : row[3];
    nextSeq[position] = seen.get(agent) ?? null;
    if (row[0] === 0) seen.set(agent, row[7]);
    else if (row[1] !== 'fork') seen.set(agent, row[4]);
  }
  return source.map((row, position): TimelineRowView => {
    if (row[0] === 1) return { type: 'event', kind: row[1], label: row[1] === 'fork' ? (row[5] ?? '') : (row[2] ?? '') };
    const [, index, title, tools, tokens, state, agent, firstSeq, clearedOutputs] = row;
    const next = nextSeq[position] ?? null;
    const exchange = { index, title, tools, tokens, state, agentId: answer.agents[agent] ?? '', firstSeq };
    return { type: 'exchange', exchange, clearedOutputs, throughSeq: next === null ? null : next - 1 };
  });
}

/**
 * Where the page's drawn rows come from: every row of the timeline in order, with the
 * `── context ──` cutoff (and the summary in force under it) placed before the first exchange
 * the window holds that is not pinned (where `history` draws its rule).
 */
export interface DisplayLayout {
  /** How many rows are drawn in all. */
  readonly count: number;
  /** The drawn position of the cutoff, or -1. */
  readonly cutoffAt: number;
  /** What is drawn at a position: the timeline's row of that number, the cutoff, or the summary. */
  at(position: number): { readonly row: number } | { readonly marker: 'cutoff' } | { readonly marker: 'summary'; readonly summary: SummaryJson };
}

export function displayLayout(timeline: Pick<TimelineWindowJson, 'rowCount' | 'cutoffRow' | 'summary'>): DisplayLayout {
  const { rowCount, cutoffRow, summary } = timeline;
  if (cutoffRow === -1) return { count: rowCount, cutoffAt: -1, at: (position) => ({ row: position }) };
  const markers = summary ? 2 : 1;
  return {
    count: rowCount + markers,
    cutoffAt: cutoffRow,
    at: (position) => {
      if (position < cutoffRow) return { row: position };
      if (position === cutoffRow) return { marker: 'cutoff' };
      if (summary && position === cutoffRow + 1) return { marker: 'summary', summary };
      return { row: position - markers };
    },
  };
}
