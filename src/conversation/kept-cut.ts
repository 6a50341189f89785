import type { ConversationStore, MessagePosition } from './conversation-store.js';
import type { WindowState } from '../window/window-state.js';
import type { WindowPolicy } from '../window/window-policy.js';

/**
 * Where a `cache-aware` window's cut is kept for a stored agent: the last message of the newest
 * evicted range the model still sees (a rewind or clear past it sets it aside). The window
 * starts at the first exchange after it. Nothing new is stored: every move of the cut is
 * recorded as an evicted range, so a restarted process, `window --agent` and the proxy all read
 * the same cut. Undefined for other policies, or when nothing was evicted yet.
 */
export async function keptCutPosition(store: ConversationStore, agentId: string, policy: WindowPolicy): Promise<MessagePosition | undefined> {
  if (policy.name !== 'cache-aware') return undefined;
  // A fork starts with its parent's cut: ranges recorded up to the fork count.
  const ranges = (await store.ranges(agentId, { kind: 'evicted', inherited: true })).reverse();
  if (ranges.length === 0) return undefined;
  const visible = await store.visible(agentId, ranges.map((range) => range.last));
  return ranges.find((_, index) => visible[index])?.last;
}

/** Index of the message at `position` among `positions`, or -1. */
export function indexOfPosition(positions: readonly (MessagePosition | undefined)[], position: MessagePosition): number {
  return positions.findIndex((entry) => entry?.agentId === position.agentId && entry.seq === position.seq);
}

/** Index of the first exchange of a state that starts after message `messageIndex`. */
export function exchangeAfter(state: WindowState, messageIndex: number): number {
  let index = 0;
  for (let bounds = state.exchangeBounds(0); bounds && bounds.firstMessage <= messageIndex; bounds = state.exchangeBounds(++index));
  return index;
}
