import { standingSummaries } from './active-summary.js';
import type { ContextRange } from './conversation-store.js';

/** A summary, or an uncompact that set one aside, as a row of the history timeline shows it. */
export interface SummaryEvent {
  readonly kind: 'summary' | 'uncompact';
  /** The summary's last message: the agent that stores it, and its seq. */
  readonly agentId: string;
  readonly seq: number;
  readonly createdAt: Date;
  readonly summarizer: string;
  readonly coveredExchanges: number;
  /** For a summary: an uncompact set it aside. */
  readonly undone: boolean;
}

/** The summary and uncompact ranges of an agent (oldest first) as timeline events. */
export function summaryEvents(ranges: readonly ContextRange[]): SummaryEvent[] {
  const standing = new Set<ContextRange>(standingSummaries(ranges));
  return ranges.flatMap((range): SummaryEvent[] => {
    if (range.kind !== 'summary' && range.kind !== 'uncompact') return [];
    const { summarizer, coveredExchanges } = range.data;
    return [{
      kind: range.kind,
      agentId: range.last.agentId,
      seq: range.last.seq,
      createdAt: range.createdAt,
      summarizer: typeof summarizer === 'string' ? summarizer : 'unknown',
      coveredExchanges: typeof coveredExchanges === 'number' ? coveredExchanges : 0,
      undone: range.kind === 'summary' && !standing.has(range),
    }];
  });
}
