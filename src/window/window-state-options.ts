import type { ToolDefinition } from '../message/message.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { WindowPolicy } from './window-policy.js';

/** Options of a {@link WindowState}: the same as `planWindow`'s, without the messages. */
export interface WindowStateOptions {
  readonly system?: string | undefined;
  readonly tools?: readonly ToolDefinition[] | undefined;
  readonly budgetTokens?: number | undefined;
  readonly counter: TokenCounter;
  readonly provider?: string | undefined;
  readonly model?: string | undefined;
  readonly pinFirstExchange?: boolean | undefined;
  /** How exchanges are chosen for eviction (default `cache-aware`). */
  readonly policy?: WindowPolicy | undefined;
  /** Where the message at an index of this state is stored, for cleared-output placeholders. */
  readonly storedAs?: ((messageIndex: number) => string) | undefined;
}

/** What a prune changed. Exchange indices point into the conversation after events. */
export interface PruneResult {
  readonly evicted: readonly number[];
  /** Exchanges brought back because there is room again (a larger budget, a rewind). */
  readonly readmitted: readonly number[];
  readonly totalTokens: number;
  readonly overBudget: boolean;
  readonly overByTokens: number;
}
