import type { agentHistoryJson } from './agent-history-json.js';

/** An agent's history as the page reads it: `history --json` without the window's messages. */
type AgentHistory = Omit<ReturnType<typeof agentHistoryJson>, 'messages'>;
type TimelineRowJson = AgentHistory['timeline'][number];

/** An exchange row: 0, its number (null if hidden), title, tools, tokens, state, agent (index into `agents`), first seq, tool outputs cleared. */
export type CompactExchangeRow = [0, number | null, string, readonly string[], number, string, number, number, number];
/** An event row: 1, kind, label, agent (index into `agents`), seq, the fork's child name or id. */
export type CompactEventRow = [1, string, string | null, number, number, string | null];

/** The history's figures the page's header shows, and the summary in force. */
function headerOf(history: AgentHistory) {
  const { agentId, provider, model, budgetTokens, totalTokens, pinnedTokens, evictedExchanges, summary } = history;
  const exchangeCount = history.exchanges.length;
  return { agentId, provider, model, budgetTokens, totalTokens, pinnedTokens, evictedExchanges, exchangeCount, summary };
}

/** Agent ids listed once, each row naming its agent by its index in the list. */
function agentList() {
  const agents: string[] = [];
  const agentIndex = new Map<string, number>();
  const indexOf = (agentId: string) => {
    let index = agentIndex.get(agentId);
    if (index === undefined) {
      index = agents.push(agentId) - 1;
      agentIndex.set(agentId, index);
    }
    return index;
  };
  return { agents, indexOf };
}

/** A timeline row as a short array. */
function compactRow(row: TimelineRowJson, indexOf: (agentId: string) => number, cleared: ReadonlyMap<number, number>): CompactExchangeRow | CompactEventRow {
  if (row.type === 'event') {
    const fork = row.fork ? (row.fork.childName ?? row.fork.childId) : null;
    return [1, row.kind, row.label, indexOf(row.agentId), row.seq, fork];
  }
  const state = rowState(row);
  const clearedOutputs = row.index === null ? 0 : (cleared.get(row.index) ?? 0);
  // The row's own tools array, not a copy: a held history's unchanged rows keep their text (see KeptJsonText).
  return [0, row.index, row.title, row.tools, row.tokens, state, indexOf(row.agentId), row.firstSeq, clearedOutputs];
}

function rowState(row: TimelineRowJson & { readonly type: 'exchange' }): string {
  return row.pinned ? 'pinned' : row.inWindow ? 'in' : (row.outOfWindow ?? 'out');
}

/**
 * An agent's history for the web page's first render: the header figures of `history --json
 * --all`, the summary, and each timeline row as a short array (agent ids listed once). A tenth
 * of the full JSON's size on a long history, which the browser parses that much sooner.
 */
export function compactTimeline(history: AgentHistory) {
  const { agents, indexOf } = agentList();
  // Figured once per history: a window of it asked for too uses the same counts.
  const { cleared } = figuresOf(history);
  const rows = history.timeline.map((row) => compactRow(row, indexOf, cleared));
  return { ...headerOf(history), agents, rows };
}

/** What the page asks of the timeline: `count` rows from `first`, or without `first` those around where it first scrolls to. */
export interface TimelineWindowRequest {
  readonly first?: number | undefined;
  readonly count: number;
}

/** What a window of the timeline is cut from, figured once for each history (each is a pass over every row). */
interface TimelineFigures {
  /** The position of the first exchange the window holds that is not pinned (where the `── context ──` rule goes), or -1. */
  readonly cutoffRow: number;
  /** The most tokens of an exchange row (at least 1): the bars' scale. */
  readonly maxTokens: number;
  readonly cleared: ReadonlyMap<number, number>;
}

const figured = new WeakMap<AgentHistory, TimelineFigures>();

function figuresOf(history: AgentHistory): TimelineFigures {
  let figures = figured.get(history);
  if (figures === undefined) {
    let cutoffRow = -1;
    let maxTokens = 1;
    history.timeline.forEach((row, position) => {
      if (row.type !== 'exchange') return;
      if (cutoffRow === -1 && rowState(row) === 'in') cutoffRow = position;
      if (row.tokens > maxTokens) maxTokens = row.tokens;
    });
    figures = { cutoffRow, maxTokens, cleared: clearedByExchange(history) };
    figured.set(history, figures);
  }
  return figures;
}

/**
 * A window of {@link compactTimeline}: the same header figures and summary, and only the rows
 * from `firstRow` (`count` of them at most), with what the page needs to draw them among rows it
 * has not read: how many rows there are (`rowCount`), where the cutoff is (`cutoffRow`, the
 * position of the first exchange the window holds that is not pinned, or -1), the largest
 * exchange's tokens (`maxTokens`, the bars' scale) and, for each agent listed, the seq of its
 * first stored row after the window (`nextSeqs`, null if none), which bounds its last
 * exchange's messages. Without `first`, the window holds the cutoff a third of the way down (the
 * end, with no cutoff), where the page first scrolls to. Its rows are what `compactTimeline`
 * gives at those positions, save for the agent indices, which index this answer's `agents`.
 */
export function compactTimelineWindow(history: AgentHistory, request: TimelineWindowRequest) {
  const { cutoffRow, maxTokens, cleared } = figuresOf(history);
  const all = history.timeline;
  const count = Math.max(0, Math.min(request.count, all.length));
  const target = cutoffRow === -1 ? all.length - 1 : cutoffRow;
  const wanted = request.first ?? target - Math.floor(count / 3);
  const firstRow = Math.max(0, Math.min(wanted, all.length - count));
  const { agents, indexOf } = agentList();
  const rows: (CompactExchangeRow | CompactEventRow)[] = [];
  const end = Math.min(all.length, firstRow + count);
  for (let position = firstRow; position < end; position++) rows.push(compactRow(all[position] as TimelineRowJson, indexOf, cleared));
  // As the page bounds an exchange's messages: the next exchange or event (not a fork) of the same agent.
  const nextSeqs: (number | null)[] = agents.map(() => null);
  let unfound = agents.length;
  for (let position = end; position < all.length && unfound > 0; position++) {
    const row = all[position] as TimelineRowJson;
    if (row.type === 'event' && row.kind === 'fork') continue;
    const agent = agents.indexOf(row.agentId);
    if (agent === -1 || nextSeqs[agent] !== null) continue;
    nextSeqs[agent] = row.type === 'exchange' ? row.firstSeq : row.seq;
    unfound--;
  }
  return { ...headerOf(history), agents, rows, rowCount: all.length, firstRow, cutoffRow, maxTokens, nextSeqs };
}

/** How many tool outputs the plan cleared in each exchange (by its number). */
function clearedByExchange(history: AgentHistory): Map<number, number> {
  // Most plans clear nothing: no span is made for each exchange then.
  if (history.clearedToolOutputs.length === 0) return new Map();
  const spans = history.exchanges.flatMap((exchange) =>
    'firstMessage' in exchange && typeof exchange.firstMessage === 'number' && 'lastMessage' in exchange && typeof exchange.lastMessage === 'number'
      ? [{ index: exchange.index, first: exchange.firstMessage, last: exchange.lastMessage }]
      : []);
  const counts = new Map<number, number>();
  const holding = spanLocator(spans);
  for (const output of history.clearedToolOutputs) {
    const holder = holding(output.messageIndex);
    if (holder) counts.set(holder.index, (counts.get(holder.index) ?? 0) + 1);
  }
  return counts;
}

/**
 * Finds the first span that holds a message, as `spans.find` gives it. The plan's exchanges
 * follow one another, so the spans are in order and apart: a binary search finds the last one
 * starting at or before it (spans out of order are searched one by one).
 */
function spanLocator<Span extends { readonly first: number; readonly last: number }>(spans: readonly Span[]): (message: number) => Span | undefined {
  let ordered = true;
  for (let index = 1; index < spans.length && ordered; index++) ordered = (spans[index - 1] as Span).last < (spans[index] as Span).first;
  if (!ordered) return (message) => spans.find((span) => span.first <= message && message <= span.last);
  return (message) => {
    let low = 0;
    let high = spans.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((spans[middle] as Span).first <= message) low = middle + 1;
      else high = middle;
    }
    const span = spans[low - 1];
    return span && message <= span.last ? span : undefined;
  };
}
