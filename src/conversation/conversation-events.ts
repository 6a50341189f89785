import type { SummaryCost } from '../condense/summarizer.js';
import type { SummaryFailureReason } from '../condense/summary-failure.js';
import type { ClearedToolOutput } from '../window/clear-tool-outputs.js';

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
    /** What the window does instead: plain eviction (what is out stays out, unsummarized; what is in stays in). */
    readonly fallbackTo: 'eviction';
    readonly tokensBefore: number;
    readonly tokensAfter: number;
    readonly cost: SummaryCost;
  }
  | {
    /** `uncompact`: the summary in force was set aside (it stays in the history); the one before it, if any, is in force again. */
    readonly type: 'summary-undone';
    readonly summarizer: string;
    readonly coveredExchanges: number;
    readonly tokensBefore: number;
    readonly tokensAfter: number;
  }
  | {
    readonly type: 'tool-outputs-cleared';
    readonly outputs: readonly ClearedToolOutput[];
    readonly tokensBefore: number;
    readonly tokensAfter: number;
  }
  | {
    readonly type: 'overflow-retried';
    /** 1 for the first retry. */
    readonly attempt: number;
    /** The provider's count of the refused request and its limit, when it said. */
    readonly providerTokens: number | undefined;
    readonly limit: number | undefined;
    /** Our count of the refused request, and of the one retried. */
    readonly tokensBefore: number;
    readonly tokensAfter: number;
  };

/** A listener for {@link ConversationEvent}s. */
export type ConversationListener = (event: ConversationEvent) => void;
