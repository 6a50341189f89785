import type { SummaryData } from '../condense/stored-summary.js';
import type { ContextRange, ConversationStore } from './conversation-store.js';

/** A summary as stored: the range of history it stands for and what it says. */
export interface StoredSummary extends ContextRange {
  readonly data: SummaryData & Record<string, unknown>;
}

/**
 * The summary in force for an agent: the newest one whose last covered message the model still
 * sees. A rewind or clear past a summary's end sets it aside, so what it covered comes back.
 */
export async function activeSummary(store: ConversationStore, agentId: string): Promise<StoredSummary | undefined> {
  // A fork starts with the summary its parent had in force: ranges recorded up to the fork count.
  const summaries = (await store.ranges(agentId, { kind: 'summary', inherited: true })).reverse();
  if (summaries.length === 0) return undefined;
  const visible = await store.visible(agentId, summaries.map((summary) => summary.last));
  return summaries.find((_, index) => visible[index]) as StoredSummary | undefined;
}
