import type { MessagePosition } from '../store/history-store.js';
import type { PruneResult, WindowState } from '../window/window-state.js';
import { lossReportLater } from './range-loss-report.js';

/**
 * Where the exchanges a prune evicted are stored: the first message of the oldest and the last
 * of the newest. Undefined when none was evicted, or one is not stored (the summary).
 */
export function evictedRange(
  state: WindowState,
  positions: readonly (MessagePosition | undefined)[],
  evicted: readonly number[],
): { readonly first: MessagePosition; readonly last: MessagePosition } | undefined {
  // Loops, not Math.min(...evicted): a first prune of a long history evicts more exchanges than a call takes arguments.
  let firstEvicted = Number.POSITIVE_INFINITY;
  let lastEvicted = Number.NEGATIVE_INFINITY;
  for (const index of evicted) {
    firstEvicted = Math.min(firstEvicted, index);
    lastEvicted = Math.max(lastEvicted, index);
  }
  const first = state.exchangeBounds(firstEvicted);
  const last = state.exchangeBounds(lastEvicted);
  const from = first && positions[first.firstMessage];
  const to = last && positions[last.lastMessage];
  return from && to ? { first: from, last: to } : undefined;
}

/**
 * The record of what a prune evicted, as the store keeps it (a range of the history, with how many
 * exchanges, why, the window's tokens after, and what left the model's view, against the summary
 * in force and the window), made when the function returned is called: what it reads of the state
 * is taken now, the loss report (the costly part) then. Undefined when nothing stored was evicted.
 */
export function evictionRecordLater(
  state: WindowState,
  positions: readonly (MessagePosition | undefined)[],
  result: PruneResult,
  reason: string,
  summary?: string,
) {
  const range = evictedRange(state, positions, result.evicted);
  if (!range) return undefined;
  const dropped = lossReportLater(state, (index) => positions[index], result.evicted, { summary, window: state.windowMessages() });
  const counts = { exchanges: result.evicted.length, reason, totalTokensAfter: result.totalTokens, budgetTokens: state.budgetTokens };
  return () => ({ kind: 'evicted' as const, ...range, data: { ...counts, dropped: dropped() } });
}

/** Where a window message is stored, as an error names it: `message 12`, `message 3 of agent …`, or the summary. */
export function storedAsText(position: MessagePosition | undefined, agentId: string): string {
  if (!position) return 'the summary';
  return position.agentId === agentId ? `message ${position.seq}` : `message ${position.seq} of agent ${position.agentId}`;
}
