import type { LossItem } from '../condense/loss-report.js';
import type { Summarizer } from '../condense/summarizer.js';
import type { SummaryFailureReason } from '../condense/summary-failure.js';
import type { ToolDefinition } from '../message/message.js';
import type { WireFormat } from '../providers/wire-format.js';
import type { ConversationStore } from './conversation-store.js';
import type { RecallOptions } from './recall-tools.js';
import type { TokenCount, TokenCounter } from '../tokens/token-counter.js';
import type { ModelBudgetOverrides } from '../window/model-budget.js';
import type { WindowPlan } from '../window/window-plan.js';
import type { WindowPolicy } from '../window/window-policy.js';

/** Options of {@link openConversation}. */
export interface OpenConversationOptions {
  readonly store: ConversationStore;
  /** Resume this agent; a new one is created when absent. */
  readonly agentId?: string | undefined;
  readonly provider: string;
  readonly model: string;
  /** A counter for the model, e.g. from `loadTokenCounter`. */
  readonly counter: TokenCounter;
  /** Default: what the agent was created with, else 100,000. 0 disables windowing. */
  readonly budgetTokens?: number | undefined;
  /**
   * Without `budgetTokens`, derive the budget from the model: its context window less a buffer
   * (10%) and its reserved output, from the catalog with these overrides. The condense
   * threshold is then a percentage of the model's context window.
   */
  readonly modelBudget?: ModelBudgetOverrides | true | undefined;
  /** Default: what the agent was created with (see `preambleAsGiven`). */
  readonly system?: string | undefined;
  /** Default: what the agent was created with (see `preambleAsGiven`). */
  readonly tools?: readonly ToolDefinition[] | undefined;
  /**
   * `system` and `tools` are exactly the ones given, none when not given, never the agent's stored
   * ones: for a caller whose every request carries its whole body (a proxy, a framework's call).
   * The agent's stored `provider`, `model`, `system` and `tools` then become the ones given, when
   * they differ (one write), so that its views plan what the next call sends. Default false.
   */
  readonly preambleAsGiven?: boolean | undefined;
  readonly pinFirstExchange?: boolean | undefined;
  /** The shape of `request()`'s body; by default the provider's own (OpenAI: Chat Completions). */
  readonly format?: WireFormat | undefined;
  /** Condense what the window evicts into a pinned summary; without it, eviction is plain. */
  readonly condense?: CondenseOptions | undefined;
  /** How the window chooses what to evict (default `cache-aware`); see {@link WindowPolicy}. */
  readonly policy?: WindowPolicy | undefined;
  /**
   * Offer the model `search_history` and `read_history`: their definitions follow `tools` in every
   * request (counted in the budget), and `Conversation.answerRecallCall` runs a call of them.
   */
  readonly recall?: boolean | RecallOptions | undefined;
  /** Kept with a new agent's meta (e.g. the working directory of a chat). */
  readonly meta?: Readonly<Record<string, unknown>> | undefined;
  /**
   * What a `request` evicts is recorded (its range and loss report made and stored) with the
   * conversation's next write, in the same transaction (the answer's `append`, `endTurn`), or by
   * `writeEvictionRecords`; not before `request` returns. For a proxy, whose client waits on the
   * request: an eviction then costs it nothing. The messages are stored as always; a record not
   * yet written when the process dies is not. Default false.
   */
  readonly deferEvictionRecords?: boolean | undefined;
  /**
   * Each message is converted to the wire format once, and its elements (frozen) are the same
   * objects in every request built while it stays in the window (OpenAI Chat and Responses,
   * Anthropic; not Gemini). A body built so must not be changed. For a proxy, which serializes
   * each element once (see `RequestBodyBytes`). Default false.
   */
  readonly reuseConvertedMessages?: boolean | undefined;
}

/** Options of {@link Conversation.append}. */
export interface AppendMessagesOptions {
  /** Pins every model message appended (a `pin` event for each, stored with them). */
  readonly pinned?: boolean | undefined;
  /**
   * The messages end the turn (the model's answer) and this is the turn's usage: its cache
   * figures are stored in the append's transaction rather than in one of their own when
   * `endTurn` is given the same usage (the same object, or an equal copy).
   */
  readonly endsTurn?: { readonly usage: unknown } | undefined;
}

/** Options of {@link Conversation.request}. */
export interface RequestOptions {
  /** The body's other top-level fields, restored in the request (see `ConvertedRequest.options`). */
  readonly bodyOptions?: Readonly<Record<string, unknown>> | undefined;
}

/** Options of {@link Conversation.send}. */
export interface SendOptions extends RequestOptions {
  /** Retries after the provider answers that the request is too long (default 3). */
  readonly maxRetries?: number | undefined;
}

/** How a conversation condenses; see {@link Conversation.compact}. */
export interface CondenseOptions {
  readonly summarizer: Summarizer;
  /** Condense when the request reaches this percentage of the context window (default 75). */
  readonly thresholdPercent?: number | undefined;
  /** The window the percentage is of; default: the budget. */
  readonly contextWindowTokens?: number | undefined;
  /** When the threshold fires, condense until the window holds at most this share of the budget (default 0.5). */
  readonly targetShare?: number | undefined;
  /** The most of the budget the summary may take (default 0.1). */
  readonly maxSummaryShare?: number | undefined;
  /** Milliseconds before a summary is abandoned (default 60,000). */
  readonly timeoutMs?: number | undefined;
  /** Summaries tried within one turn before condensing stops (default 2). */
  readonly maxPassesPerTurn?: number | undefined;
  /** What every summary should keep above all (the LLM summarizer's prompt asks for it; the digest shows it first). */
  readonly focus?: string | undefined;
}

/** Options of {@link Conversation.compact}. */
export interface CompactOptions {
  /** Make and show the summary, record nothing. */
  readonly dryRun?: boolean | undefined;
  /** Condense only up to this exchange, numbered as `history()` numbers them (from 0); the latest always stays. */
  readonly through?: number | undefined;
  /** What this summary should keep above all; wins over {@link CondenseOptions.focus}. */
  readonly focus?: string | undefined;
}

/** What {@link Conversation.uncompact} set aside, and what is in force after it. */
export interface UncompactResult {
  /** The summary set aside: it stays in the history, marked undone. */
  readonly undone: UncompactedSummary;
  /** The summary in force again (the one before it), or null. */
  readonly restored: UncompactedSummary | null;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
}

/** A summary as {@link UncompactResult} names it. */
export interface UncompactedSummary {
  readonly summarizer: string;
  readonly coveredExchanges: number;
  /** Where its covered history ends: the agent that stores that message, and its seq. */
  readonly last: { readonly agentId: string; readonly seq: number };
  readonly createdAt: Date;
}

/** What a condensing pass did: `compact --json` prints it. */
export interface CompactResult {
  /** The summary made (shown before anything is replaced), or null when none was. */
  readonly summary: string | null;
  readonly coveredExchanges: number;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** Null when the summary was used, else why the window fell back to eviction. */
  readonly fallback: SummaryFailureReason | null;
  /** What went wrong, in one sentence, when a fallback was taken. */
  readonly fallbackDetail: string | null;
  /** `eviction` when the summary was not used (the window keeps to plain eviction, the history is unchanged), else null. */
  readonly fallbackTo: 'eviction' | null;
  /** What the summary leaves out of the model's view (its loss report); empty when no summary was made. */
  readonly dropped: readonly LossItem[];
  /**
   * With pins: each pinned message, and whether its text is present word for word in what the
   * model sees after the summary. A summary that would lose one is discarded (`lost-pin`).
   */
  readonly pins?: readonly PinCheck[] | undefined;
}

/** A pinned message checked after a compaction. */
export interface PinCheck {
  readonly agentId: string;
  readonly seq: number;
  readonly present: boolean;
}

/** The report `request()` gives with the body. */
export type ConversationReport = WindowPlan & {
  /** The request's count corrected by the provider's reported usage (see `UsageCalibration`). */
  readonly calibrated: TokenCount;
  /**
   * True when only the newest part of a long history was loaded: `exchanges` (and their
   * indices, and `evictedExchanges`) then cover the loaded exchanges; `history()` lists all.
   */
  readonly partial: boolean;
};
