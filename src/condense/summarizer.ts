import type { ModelMessage } from '../message/message.js';

/** What a summarizer folds into a summary. */
export interface SummaryInput {
  /** The exchanges to fold in, oldest first, each as its messages. */
  readonly exchanges: readonly (readonly ModelMessage[])[];
  /** The summary so far: a rolling summary builds on it. */
  readonly previousSummary?: string | undefined;
  /** The most tokens the summary may take. */
  readonly maxTokens: number;
  /** Counts the tokens of a text for the conversation's model. */
  readonly countTokens: (text: string) => number;
  /** Aborted when the summary takes too long. */
  readonly signal?: AbortSignal | undefined;
  /** What the summary should keep above all, in the user's words (`compact --focus`). */
  readonly focus?: string | undefined;
}

/** What producing a summary cost. */
export interface SummaryCost {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** In US dollars, when the price is known. */
  readonly usd?: number | undefined;
}

/** A summary and how it was made. */
export interface SummaryResult {
  readonly text: string;
  readonly cost: SummaryCost;
  /**
   * `length` when the summarizer's output cap cut the summary off; `content-filter` when the
   * provider's filter stopped it short or withheld it. Either way the summary is not used.
   */
  readonly finishReason: 'stop' | 'length' | 'content-filter';
}

/**
 * Condenses exchanges that left the window into a summary the window keeps pinned. A rolling
 * summarizer folds the previous summary and the newly evicted exchanges into one.
 */
export interface Summarizer {
  /** `digest`, `llm`, or a name of the caller's choosing, recorded with each summary. */
  readonly name: string;
  summarize(input: SummaryInput): Promise<SummaryResult>;
}
