import type { ModelMessage } from '../message/message.js';
import type { ClearedToolOutput } from './clear-tool-outputs.js';
import type { WindowCut } from './window-cut-report.js';

/** An exchange as the plan sees it. Message indices point into the conversation after events. */
export interface PlannedExchange {
  readonly index: number;
  readonly firstMessage: number;
  readonly lastMessage: number;
  /** Tokens of its messages, plus any synthetic results it needs to be valid to send. */
  readonly tokens: number;
  readonly inWindow: boolean;
  /** True for the first exchange when `pinFirstExchange` is set. */
  readonly pinned: boolean;
}

/** A synthetic `aborted` result the plan added for a call an interrupted exchange left open. */
export interface SyntheticResult {
  readonly toolCallId: string;
  readonly toolName: string;
  /** Index of the exchange it belongs to. */
  readonly exchange: number;
}

/**
 * A pinned message and where the window sends it: `in-place` in its exchange (or among the
 * leading system messages), or `hoisted` after the preamble, as a system message with its text
 * word for word, when its exchange is out of the window.
 */
export interface PlannedPin {
  /** Index of the message (after events). */
  readonly message: number;
  /** Index of its exchange; null for a leading system message. */
  readonly exchange: number | null;
  readonly placement: 'in-place' | 'hoisted';
  /** Tokens it takes in the request as placed. */
  readonly tokens: number;
}

/**
 * Which exchanges are sent and why. Invariant:
 * `totalTokens === pinnedTokens + sum(tokens of exchanges inWindow)`.
 */
export interface WindowPlan {
  readonly provider: string;
  readonly model: string;
  /** The ceiling in tokens; 0 means windowing is disabled. */
  readonly budgetTokens: number;
  /** Tokens of the request the plan builds. */
  readonly totalTokens: number;
  /** Tokens of the preamble: framing, system prompt, tools, leading system messages and hoisted pins. */
  readonly pinnedTokens: number;
  /** Every pinned message, in order, with where it is sent. */
  readonly pins: readonly PlannedPin[];
  /**
   * The fewest tokens the request can take: the preamble, a pinned first exchange, every pin
   * hoisted (but those of the latest exchange) and the latest exchange. Over the budget, the
   * request is over budget whatever is evicted.
   */
  readonly floorTokens: number;
  /** True when even the pinned content and the latest exchange exceed the budget. */
  readonly overBudget: boolean;
  readonly overByTokens: number;
  /** True only when every counted segment was counted exactly. */
  readonly exact: boolean;
  readonly method: string;
  /** Number of leading system messages (pinned, not part of any exchange). */
  readonly preambleMessages: number;
  readonly exchanges: readonly PlannedExchange[];
  readonly evictedExchanges: number;
  /** Index of the first message after the cutoff: the first non-pinned message sent, or null. */
  readonly cutoffMessage: number | null;
  /** The window's messages, ready to send: leading system messages, hoisted pins, then whole exchanges. */
  readonly messages: readonly ModelMessage[];
  readonly syntheticResults: readonly SyntheticResult[];
  /** The policy that chose the window. */
  readonly policy: string;
  /** Tool outputs the `clear-tool-outputs` policy replaced with a placeholder in `messages`. */
  readonly clearedToolOutputs: readonly ClearedToolOutput[];
  /** Tokens the cleared outputs no longer take. */
  readonly clearedTokens: number;
  /** Where the cut was and is, why it moved or stayed, and where the request's stable (cacheable) prefix ends. */
  readonly cut: WindowCut;
}
