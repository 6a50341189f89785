import type { SummaryCost } from '../condense/summarizer.js';
import type { SummaryFailureReason } from '../condense/summary-failure.js';

/** What a {@link Conversation} tells its listeners, with the request's tokens before and after. */
export type ConversationEvent =
  | { readonly type: 'exchange-evicted'; readonly exchanges: number; readonly reason: string; readonly tokensBefore: number; readonly tokensAfter: number }
  | {
    readonly type: 'summary-created';
    readonly summarizer: string;
    readonly coveredExchanges: number;
    readonly tokensBefore: number;
    readonly tokensAfter: number;
    readonly cost: SummaryCost;
  }
  | {
    readonly type: 'summary-failed';
    readonly summarizer: string;
    readonly reason: SummaryFailureReason;
    readonly detail: string;
    readonly tokensBefore: number;
    readonly tokensAfter: number;
    readonly cost: SummaryCost;
  };

/** A listener for {@link ConversationEvent}s. */
export type ConversationListener = (event: ConversationEvent) => void;
