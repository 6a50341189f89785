import type { PlannedHistory } from '../conversation/exchange-history.js';
import type { TimelineRow } from '../conversation/history-timeline.js';
import { agentWindowJson } from './agent-window-json.js';
import { summaryView } from './summary-view.js';

/** Which rows of the whole timeline a view lists: from `first`, `count` of them, of `total`. */
export interface TimelineRange {
  readonly first: number;
  readonly count: number;
  readonly total: number;
}

/**
 * An agent's history as `history --json` prints it (and the web view reads it): the window
 * report of its plan (`format`: the agent's, as `window --agent` builds its request), the summary in force, the timeline rows given (events and hidden
 * exchanges listed apart too) and where they lie in the whole timeline, and the loss reports of
 * its summaries and evictions.
 */
export function agentHistoryJson(agentId: string, planned: PlannedHistory, rows: readonly TimelineRow[], range: TimelineRange, format: string) {
  const { plan, exchanges, summary, cache, losses, pins } = planned;
  const json = agentWindowJson(plan, exchanges, format, undefined, pins);
  const timeline = rows.map(timelineRowJson);
  return {
    ...json,
    agentId,
    summary: summary ? summaryView(summary, exchanges) : null,
    ...(cache ? { cache } : {}),
    request: undefined,
    timeline,
    timelineRange: range,
    events: timeline.filter((row) => row.type === 'event'),
    hiddenExchanges: timeline.filter((row) => row.type === 'exchange' && (row.outOfWindow === 'cleared' || row.outOfWindow === 'rewound')),
    /** What each summary and eviction left out of the model's view, oldest first: `dropped: [{ kind, text, exchange }]`. */
    losses: losses ?? [],
  };
}

/** A timeline row as `history --json` prints it: an event without its absent parts. */
function timelineRowJson(row: TimelineRow) {
  if (row.type === 'exchange') return row;
  const { fork, tookOut, ...rest } = row;
  return { ...rest, ...(fork ? { fork } : {}), ...(tookOut === undefined ? {} : { tookOut }) };
}
