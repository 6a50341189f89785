import type { SummaryJson, TimelineJson } from './web-data.js';

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

/** A row of the timeline as the page draws it. */
export type DisplayRow =
  | { readonly type: 'exchange'; readonly exchange: ExchangeView; readonly clearedOutputs: number; readonly throughSeq: number | null }
  | { readonly type: 'event'; readonly kind: string; readonly label: string }
  | { readonly type: 'summary'; readonly summary: SummaryJson }
  | { readonly type: 'cutoff' };

/**
 * The rows to draw, in order: every exchange and event of the timeline, with the
 * `── context ──` cutoff (and the summary in force under it) placed before the first exchange
 * the window holds that is not pinned (where `history` draws its rule).
 */
export function displayRows(timeline: TimelineJson): DisplayRow[] {
  const rows: DisplayRow[] = [];
  let cutoffPlaced = false;
  const source = timeline.rows;
  // The next stored row of the same agent bounds an exchange's messages.
  const nextSeq = new Array<number | null>(source.length).fill(null);
  const seen = new Map<number, number>();
  for (let position = source.length - 1; position >= 0; position--) {
    const row = source[position];
    if (!row) continue;
    const agent = row[0] === 0 ? row[6] : row[3];
    nextSeq[position] = seen.get(agent) ?? null;
    if (row[0] === 0) seen.set(agent, row[7]);
    else if (row[1] !== 'fork') seen.set(agent, row[4]);
  }
  for (const [position, row] of source.entries()) {
    if (row[0] === 1) {
      rows.push({ type: 'event', kind: row[1], label: row[1] === 'fork' ? (row[5] ?? '') : (row[2] ?? '') });
      continue;
    }
    const [, index, title, tools, tokens, state, agent, firstSeq, clearedOutputs] = row;
    if (!cutoffPlaced && state === 'in') {
      // As `history` prints it: the rule, then the summary the window starts with.
      rows.push({ type: 'cutoff' });
      if (timeline.summary) rows.push({ type: 'summary', summary: timeline.summary });
      cutoffPlaced = true;
    }
    const next = nextSeq[position] ?? null;
    const exchange = { index, title, tools, tokens, state, agentId: timeline.agents[agent] ?? '', firstSeq };
    rows.push({ type: 'exchange', exchange, clearedOutputs, throughSeq: next === null ? null : next - 1 });
  }
  return rows;
}
