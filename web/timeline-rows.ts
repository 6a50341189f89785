import type { EventRowJson, ExchangeRowJson, HistoryJson, SummaryJson } from './web-data.js';

/** A row of the timeline as the page draws it. */
export type DisplayRow =
  | { readonly type: 'exchange'; readonly row: ExchangeRowJson; readonly clearedOutputs: number; readonly throughSeq: number | null }
  | { readonly type: 'event'; readonly row: EventRowJson }
  | { readonly type: 'summary'; readonly summary: SummaryJson }
  | { readonly type: 'cutoff' };

/**
 * The rows to draw, in order: every exchange and event of the timeline, with the summary in
 * `── context ──` cutoff (and the summary in force under it) placed before the first exchange the window holds that
 * is not pinned (where `history` draws its rule).
 */
export function displayRows(history: HistoryJson): DisplayRow[] {
  const cleared = clearedOutputsByExchange(history);
  const rows: DisplayRow[] = [];
  let cutoffPlaced = false;
  const timeline = history.timeline;
  // The next stored row of the same agent bounds an exchange's messages.
  const nextSeq = new Array<number | null>(timeline.length).fill(null);
  const seen = new Map<string, number>();
  for (let position = timeline.length - 1; position >= 0; position--) {
    const row = timeline[position];
    if (!row) continue;
    nextSeq[position] = seen.get(row.agentId) ?? null;
    if (row.type === 'exchange') seen.set(row.agentId, row.firstSeq);
    else if (row.kind !== 'fork') seen.set(row.agentId, row.seq);
  }
  for (const [position, row] of timeline.entries()) {
    if (row.type === 'event') {
      rows.push({ type: 'event', row });
      continue;
    }
    if (!cutoffPlaced && row.inWindow && !row.pinned) {
      // As `history` prints it: the rule, then the summary the window starts with.
      rows.push({ type: 'cutoff' });
      if (history.summary) rows.push({ type: 'summary', summary: history.summary });
      cutoffPlaced = true;
    }
    const next = nextSeq[position] ?? null;
    rows.push({ type: 'exchange', row, clearedOutputs: row.index === null ? 0 : (cleared.get(row.index) ?? 0), throughSeq: next === null ? null : next - 1 });
  }
  return rows;
}

/** How many tool outputs the plan cleared in each exchange (by its number). */
function clearedOutputsByExchange(history: HistoryJson): Map<number, number> {
  const counts = new Map<number, number>();
  const spans = history.exchanges.filter((exchange) => exchange.firstMessage !== undefined && exchange.lastMessage !== undefined);
  for (const output of history.clearedToolOutputs) {
    const holder = spans.find((exchange) => (exchange.firstMessage ?? 0) <= output.messageIndex && output.messageIndex <= (exchange.lastMessage ?? -1));
    if (holder) counts.set(holder.index, (counts.get(holder.index) ?? 0) + 1);
  }
  return counts;
}
