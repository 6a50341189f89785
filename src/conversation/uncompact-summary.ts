import { SlidingContextError } from '../errors/sliding-context-error.js';
import type { StoredSummary } from './active-summary.js';
import type { CondenseHost } from './condenser.js';
import type { UncompactedSummary, UncompactResult } from './conversation-options.js';

/** A summary as an uncompact's result names it. */
function named(summary: StoredSummary): UncompactedSummary {
  return { summarizer: summary.data.summarizer, coveredExchanges: summary.data.coveredExchanges, last: summary.last, createdAt: summary.createdAt };
}

/**
 * Sets aside the summary in force of a conversation: an `uncompact` range over the same messages
 * is recorded (the summary stays stored) and the window is loaded again, under the summary before
 * it if any. A fork's uncompact is its own: its parent keeps its summary.
 * @throws SlidingContextError `NO_SUMMARY` when no summary is in force
 */
export async function uncompactSummary(agentId: string, host: CondenseHost): Promise<UncompactResult> {
  const summary = host.summary();
  if (!summary) {
    throw new SlidingContextError('NO_SUMMARY', `Nothing to uncompact: agent ${agentId} has no summary in force (none was made, or each one was undone already).`);
  }
  const tokensBefore = host.state().plan().totalTokens;
  const { summarizer, coveredExchanges } = summary.data;
  await host.recordRange({ kind: 'uncompact', first: summary.first, last: summary.last, data: { summarizer, coveredExchanges } });
  const tokensAfter = host.state().plan().totalTokens;
  host.emit({ type: 'summary-undone', summarizer, coveredExchanges, tokensBefore, tokensAfter });
  const restored = host.summary();
  return { undone: named(summary), restored: restored ? named(restored) : null, tokensBefore, tokensAfter };
}
