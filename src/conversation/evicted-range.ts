import type { MessagePosition } from '../store/history-store.js';
import type { WindowState } from '../window/window-state.js';

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
