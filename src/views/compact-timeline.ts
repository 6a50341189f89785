import type { agentHistoryJson } from './agent-history-json.js';

type AgentHistory = ReturnType<typeof agentHistoryJson>;

/** An exchange row: 0, its number (null if hidden), title, tools, tokens, state, agent (index into `agents`), first seq, tool outputs cleared. */
export type CompactExchangeRow = [0, number | null, string, readonly string[], number, string, number, number, number];
/** An event row: 1, kind, label, agent (index into `agents`), seq, the fork's child name or id. */
export type CompactEventRow = [1, string, string | null, number, number, string | null];

/**
 * An agent's history for the web page's first render: the header figures of `history --json
 * --all`, the summary, and each timeline row as a short array (agent ids listed once). A tenth
 * of the full JSON's size on a long history, which the browser parses that much sooner.
 */
export function compactTimeline(history: AgentHistory) {
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
  const cleared = clearedByExchange(history);
  const rows = history.timeline.map((row): CompactExchangeRow | CompactEventRow => {
    if (row.type === 'event') {
      const fork = row.fork ? (row.fork.childName ?? row.fork.childId) : null;
      return [1, row.kind, row.label, indexOf(row.agentId), row.seq, fork];
    }
    const state = row.pinned ? 'pinned' : row.inWindow ? 'in' : (row.outOfWindow ?? 'out');
    const clearedOutputs = row.index === null ? 0 : (cleared.get(row.index) ?? 0);
    // The row's own tools array, not a copy: a held history's unchanged rows keep their text (see KeptJsonText).
    return [0, row.index, row.title, row.tools, row.tokens, state, indexOf(row.agentId), row.firstSeq, clearedOutputs];
  });
  const { agentId, provider, model, budgetTokens, totalTokens, pinnedTokens, evictedExchanges, summary } = history;
  const exchangeCount = history.exchanges.length;
  return { agentId, provider, model, budgetTokens, totalTokens, pinnedTokens, evictedExchanges, exchangeCount, summary, agents, rows };
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
  for (const output of history.clearedToolOutputs) {
    const holder = spans.find((span) => span.first <= output.messageIndex && output.messageIndex <= span.last);
    if (holder) counts.set(holder.index, (counts.get(holder.index) ?? 0) + 1);
  }
  return counts;
}
