import type { SummaryCost } from '../condense/summarizer.js';
import type { StoredSummary } from '../conversation/active-summary.js';
import type { ExchangeHistory } from '../conversation/exchange-history.js';
import { storedDropped } from '../conversation/loss-records.js';
import type { LossItem } from '../condense/loss-report.js';

/** The summary in force, as `history` shows it (and `history --json` prints it). */
export interface SummaryView {
  readonly text: string;
  readonly summarizer: string;
  readonly coveredExchanges: number;
  /** Indices of the first and last exchange it covers in this view. */
  readonly exchanges: { readonly first: number; readonly last: number } | null;
  /** The stored messages it covers. */
  readonly messages: { readonly first: { readonly agentId: string; readonly seq: number }; readonly last: { readonly agentId: string; readonly seq: number } };
  readonly tokens: number | null;
  readonly cost: SummaryCost;
  readonly createdAt: Date;
  /** What it left out of the model's view when it was made (its loss report); null when none was recorded. */
  readonly dropped: readonly LossItem[] | null;
}

// Folded pairwise, not Math.min(...covered): a summary may stand for more exchanges than a call takes arguments.
const lower = (low: number, index: number) => Math.min(low, index);
const higher = (high: number, index: number) => Math.max(high, index);

/** The summary in force as `history` shows it: what it says, what it covers, what it cost. */
export function summaryView(summary: StoredSummary, exchanges: readonly ExchangeHistory[]): SummaryView {
  const summarized = exchanges.filter((exchange) => exchange.summarized);
  const covered = summarized.map((exchange) => exchange.index);
  const start = summarized[0];
  return {
    text: summary.data.text,
    summarizer: summary.data.summarizer,
    coveredExchanges: summary.data.coveredExchanges,
    exchanges: covered.length > 0 ? { first: covered.reduce(lower), last: covered.reduce(higher) } : null,
    // A rolling summary covers everything from its first exchange on, not only its own range.
    messages: { first: start ? { agentId: start.agentId, seq: start.firstSeq } : summary.first, last: summary.last },
    tokens: typeof summary.data.tokens === 'number' ? summary.data.tokens : null,
    cost: summary.data.cost,
    createdAt: summary.createdAt,
    dropped: storedDropped(summary.data.dropped) ?? null,
  };
}
