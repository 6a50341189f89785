import type { TimelineEventRow, TimelineExchangeRow, TimelineRow } from '../../conversation/history-timeline.js';
import type { TurnCacheUsage } from '../../conversation/prompt-cache.js';
import type { WindowPlan } from '../../window/window-plan.js';
import { renderContextRule } from './context-rule.js';
import { formatAge } from './format-age.js';
import { cachedShareText, cacheTotalLine } from './cache-usage-text.js';
import { clipText } from './format-exchange.js';
import { formatCount } from './format-count.js';
import { formatNumber } from './format-number.js';
import { renderSummary } from './history-report.js';
import type { SummaryView } from '../../views/summary-view.js';
import { type PinLine, renderPins } from './pins-list.js';
import { neutralizeControlCharacters } from './neutralize-control-characters.js';
import { overBudgetNote } from './over-budget-note.js';
import { cutText, type ExchangeNumbering, stablePrefixText } from './cut-text.js';

/** What the timeline view is drawn with, beside the rows. */
export interface HistoryTimelineView {
  readonly agentId: string;
  readonly plan: WindowPlan;
  readonly rows: readonly TimelineRow[];
  /** Where the rows shown start in the whole list, and how many there are in all. */
  readonly offset: number;
  /** How many of the rows before `offset` lie before the range shown by default (the clear before the latest); the rest are left out by `--tail`. */
  readonly offsetBeforeRange: number;
  readonly total: number;
  readonly all: boolean;
  readonly summary: SummaryView | undefined;
  /** Exchanges of the history in the window and out of it (summarized ones included), as `--json` counts them. */
  readonly exchangesIn: number;
  readonly exchangesOut: number;
  readonly now: Date;
  /** Dims what a clear or rewind took out (on a terminal, without NO_COLOR). */
  readonly color: boolean;
  /** The session's prompt-cache figures, when its turns recorded any. */
  readonly cache?: TurnCacheUsage | undefined;
  /** How the plan's exchanges are numbered in the rows (see `agentExchangeNumbering`). */
  readonly numberOf?: ExchangeNumbering | undefined;
  /** The pinned messages, with where the window sends them. */
  readonly pins?: readonly PinLine[] | undefined;
}

const dim = (text: string) => `\u001b[2m${text}\u001b[22m`;

function exchangeLine(row: TimelineExchangeRow, now: Date): string {
  return [
    (row.index === null ? '–' : `#${row.index}`).padStart(5),
    `"${clipText(row.title, 44)}"`.padEnd(47),
    clipText(row.tools.join(', '), 28).padEnd(28),
    formatCount(row.tokens, 'token').padStart(14),
    row.pinned ? 'pinned' : formatAge(row.createdAt, now),
    ...(row.outOfWindow === 'summarized' || row.outOfWindow === 'cleared' || row.outOfWindow === 'rewound' ? [row.outOfWindow] : []),
    ...(row.cache ? [cachedShareText(row.cache)] : []),
  ].join('  ');
}

function eventLine(row: TimelineEventRow, now: Date): string {
  const age = formatAge(row.createdAt, now);
  const tookOut = row.tookOut === undefined ? '' : `: ${formatNumber(row.tookOut)} exchange${row.tookOut === 1 ? '' : 's'} out of the window`;
  const text = (() => {
    switch (row.kind) {
      case 'clear':
        return `clear (seq ${row.seq})${tookOut}`;
      case 'mark':
        return `mark${row.label === null ? '' : ` "${clipText(row.label, 60)}"`} (seq ${row.seq})`;
      case 'rewind':
        return `rewind to ${row.label === null ? 'the latest mark' : `"${clipText(row.label, 60)}"`} (seq ${row.seq})${tookOut}`;
      case 'fork': {
        const name = row.fork?.childName ? ` "${clipText(row.fork.childName, 40)}"` : '';
        return row.fork?.direction === 'child'
          ? `fork → ${row.fork.childId}${name} (at seq ${row.seq})`
          : `forked from ${row.agentId} at seq ${row.seq} → ${row.fork?.childId ?? ''}${name}`;
      }
      case 'summary':
        return `summary (${row.label ?? 'unknown'}) of ${formatCount(row.summary?.coveredExchanges ?? 0, 'exchange')} through seq ${row.seq}${row.summary?.undone === true ? ', undone' : ''}`;
      case 'uncompact':
        return `uncompact: the summary (${row.label ?? 'unknown'}) of ${formatCount(row.summary?.coveredExchanges ?? 0, 'exchange')} through seq ${row.seq} set aside`;
    }
  })();
  return `${' '.repeat(7)}── ${text} · ${age}`;
}

/**
 * The `history` view with its events: exchanges and the clears, marks, rewinds, forks, summaries
 * and uncompacts where they happened, the `── context ──` rule before the first exchange in the window, and what a
 * clear or rewind took out still listed (marked so, and dimmed on a terminal).
 */
export function renderHistoryTimelineReport(view: HistoryTimelineView): string {
  const { plan, rows, now } = view;
  const budget = plan.budgetTokens === 0 ? 'windowing disabled' : `budget ${formatCount(plan.budgetTokens, 'token')}`;
  // Stored text (titles, tools, labels, the summary) is shown with its control characters visible, never sent to the terminal.
  const lines = [neutralizeControlCharacters(`sliding-context history ${view.agentId} · ${plan.provider}/${plan.model} · ${budget}`), ''];
  const leftOutByTail = view.offset - view.offsetBeforeRange;
  if (view.offsetBeforeRange > 0) lines.push(`(${formatCount(view.offsetBeforeRange, 'earlier row')} from before the last clears not shown: history --all lists them)`);
  if (leftOutByTail > 0) lines.push(`(${formatCount(leftOutByTail, 'earlier row')} not shown: leave out --tail, or raise it, to see them)`);
  if (view.offset > 0) lines.push('');
  const ruleAt = ruleIndex(rows, view);
  const draw = (row: TimelineRow) => {
    const line = neutralizeControlCharacters(row.type === 'event' ? eventLine(row, now) : exchangeLine(row, now));
    const hidden = row.type === 'exchange' && (row.outOfWindow === 'cleared' || row.outOfWindow === 'rewound');
    return hidden && view.color ? dim(line) : line;
  };
  const before = rows.slice(0, ruleAt);
  if (before.some((row) => row.type === 'exchange' && !row.inWindow)) lines.push('Outside the window (kept in the history):');
  for (const row of before) lines.push(draw(row));
  if (before.length > 0) lines.push('');
  if (ruleAt <= rows.length) {
    lines.push(renderContextRule(100), `Cut ${cutText(plan, plan.cut, view.numberOf)}`, '');
    for (const line of view.summary ? renderSummary(view.summary) : []) lines.push(neutralizeControlCharacters(line));
  }
  for (const row of rows.slice(ruleAt)) lines.push(draw(row));
  if (view.total === 0) lines.push('(no exchanges yet)');
  const shown = view.offset + rows.length;
  if (shown < view.total) lines.push(`(${formatNumber(view.total - shown)} later rows not shown: see --tail)`);
  const planned = rows.filter((row): row is TimelineExchangeRow => row.type === 'exchange');
  const hidden = planned.filter((row) => row.outOfWindow === 'cleared' || row.outOfWindow === 'rewound').length;
  lines.push(
    '',
    `Window ${formatNumber(plan.totalTokens)}${plan.budgetTokens > 0 ? ` / ${formatNumber(plan.budgetTokens)}` : ''} tokens · ${formatCount(view.exchangesIn, 'exchange')} in, ${formatNumber(view.exchangesOut)} out${hidden > 0 ? `, ${formatNumber(hidden)} listed here cleared or rewound` : ''} · ${plan.method}${plan.exact ? ' (exact)' : ''}`,
  );
  lines.push(`Prefix ${stablePrefixText(plan.cut, view.numberOf)}`);
  for (const line of renderPins(view.pins ?? [], plan)) lines.push(neutralizeControlCharacters(line));
  if (view.cache) lines.push(cacheTotalLine(view.cache));
  if (plan.overBudget) lines.push(overBudgetNote(plan));
  return `${lines.join('\n')}\n`;
}

/**
 * Where the rule goes among the rows shown: before the first exchange in the window that is not
 * pinned; after them all when every exchange shown lies before the window (a slice of a long list).
 */
function ruleIndex(rows: readonly TimelineRow[], view: HistoryTimelineView): number {
  const first = rows.findIndex((row) => row.type === 'exchange' && row.inWindow && !row.pinned);
  if (first !== -1) return first;
  // Nothing in the window among the rows shown: the rule sits after them, unless they all come after it.
  const anyBefore = rows.some((row) => row.type === 'exchange' && !row.inWindow);
  return anyBefore || view.offset + rows.length >= view.total ? rows.length : 0;
}
