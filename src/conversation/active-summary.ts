import type { SummaryData } from '../condense/stored-summary.js';
import type { ContextRange, ConversationStore } from './conversation-store.js';

/** A summary as stored: the range of history it stands for and what it says. */
export interface StoredSummary extends ContextRange {
  readonly data: SummaryData & Record<string, unknown>;
}

/** The range kinds {@link standingSummaries} reads: summaries, and the uncompacts that set them aside. */
export const SUMMARY_RANGE_KINDS = ['summary', 'uncompact'] as const;

const sameRange = (a: ContextRange, b: ContextRange) =>
  a.first.agentId === b.first.agentId && a.first.seq === b.first.seq && a.last.agentId === b.last.agentId && a.last.seq === b.last.seq;

/**
 * The summaries no uncompact set aside, oldest first, from summary and uncompact ranges in the
 * order they were recorded. An uncompact sets aside the newest summary of its range recorded
 * before it and not set aside yet.
 */
export function standingSummaries(ranges: readonly ContextRange[]): StoredSummary[] {
  const standing: ContextRange[] = [];
  for (const range of ranges) {
    if (range.kind === 'summary') standing.push(range);
    if (range.kind !== 'uncompact') continue;
    const undone = standing.findLastIndex((summary) => sameRange(summary, range));
    if (undone !== -1) standing.splice(undone, 1);
  }
  return standing as StoredSummary[];
}

/**
 * The summary in force for an agent: the newest one no uncompact set aside whose last covered
 * message the model still sees. A rewind or clear past a summary's end sets it aside, so what it
 * covered comes back.
 */
export async function activeSummary(store: ConversationStore, agentId: string): Promise<StoredSummary | undefined> {
  // A fork starts with the summary its parent had in force: ranges recorded up to the fork count.
  const summaries = standingSummaries(await store.ranges(agentId, { kind: SUMMARY_RANGE_KINDS, inherited: true })).reverse();
  if (summaries.length === 0) return undefined;
  const visible = await store.visible(agentId, summaries.map((summary) => summary.last));
  return summaries.find((_, index) => visible[index]);
}
