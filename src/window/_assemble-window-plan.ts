import type { ModelMessage } from '../message/message.js';
import { sumTokenCounts } from '../tokens/sum-token-counts.js';
import type { TokenCount } from '../tokens/token-counter.js';
import { insertAbortedResults, type UnansweredCall } from '../exchange/aborted-results.js';
import type { PlannedExchange, SyntheticResult, WindowPlan } from './window-plan.js';
import { type CutContext, describeCut } from './window-cut-report.js';

/** What a planner knows about one exchange. */
export interface ExchangeAccount {
  readonly firstMessage: number;
  readonly lastMessage: number;
  /** Unanswered calls grouped by the message that made them, in message order. */
  readonly groups: readonly (readonly UnansweredCall[])[];
  /** The count of each group's synthetic result message, in the same order. */
  readonly groupCounts: readonly TokenCount[];
  readonly tokens: number;
}

/** Everything needed to write out a plan once the planner has chosen the first exchange kept. */
export interface PlanInput {
  readonly provider: string;
  readonly model: string;
  readonly budgetTokens: number;
  readonly messages: readonly ModelMessage[];
  readonly messageCounts: readonly TokenCount[];
  readonly preambleCount: TokenCount;
  readonly preambleMessages: number;
  readonly exchanges: readonly ExchangeAccount[];
  readonly pinFirstExchange: boolean;
  /** Index of the first non-pinned exchange in the window; `exchanges.length` when none is. */
  readonly firstInWindow: number;
  /** The policy, and what is known of the previous cut, for the plan's `cut`. */
  readonly cut: CutContext;
}

/** Writes out the plan: totals, the exchange table, the cutoff and the messages to send. */
export function assembleWindowPlan(input: PlanInput): WindowPlan {
  const { exchanges, messages, messageCounts, firstInWindow } = input;
  const pinnedCounts = [input.preambleCount, ...messageCounts.slice(0, input.preambleMessages)];
  const windowCounts: TokenCount[] = [...pinnedCounts];
  const windowMessages: ModelMessage[] = messages.slice(0, input.preambleMessages);
  const syntheticResults: SyntheticResult[] = [];
  const planned: PlannedExchange[] = exchanges.map((exchange, index) => {
    const pinned = input.pinFirstExchange && index === 0;
    const inWindow = pinned || index >= firstInWindow;
    if (inWindow) {
      // One push per item: an exchange may hold more messages than a call takes arguments.
      for (const count of messageCounts.slice(exchange.firstMessage, exchange.lastMessage + 1)) windowCounts.push(count);
      for (const count of exchange.groupCounts) windowCounts.push(count);
      for (const message of insertAbortedResults(messages, exchange.firstMessage, exchange.lastMessage, exchange.groups)) windowMessages.push(message);
      for (const call of exchange.groups.flat()) {
        syntheticResults.push({
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          exchange: index,
        });
      }
    }
    return {
      index,
      firstMessage: exchange.firstMessage,
      lastMessage: exchange.lastMessage,
      tokens: exchange.tokens,
      inWindow,
      pinned,
    };
  });
  const total = sumTokenCounts(windowCounts);
  const overBudget = input.budgetTokens > 0 && total.tokens > input.budgetTokens;
  const cutoffExchange = exchanges[firstInWindow];
  const cut = describeCut({
    exchanges,
    messageTokens: (index) => messageCounts[index]?.tokens ?? 0,
    preambleTokens: input.preambleCount.tokens,
    preambleMessages: input.preambleMessages,
    pinFirstExchange: input.pinFirstExchange,
    firstInWindow,
    budgetTokens: input.budgetTokens,
    totalTokens: total.tokens,
    overBudget,
  }, input.cut);
  return {
    provider: input.provider,
    model: input.model,
    budgetTokens: input.budgetTokens,
    totalTokens: total.tokens,
    pinnedTokens: sumTokenCounts(pinnedCounts).tokens,
    overBudget,
    overByTokens: overBudget ? total.tokens - input.budgetTokens : 0,
    exact: total.exact,
    method: total.method,
    preambleMessages: input.preambleMessages,
    exchanges: planned,
    evictedExchanges: planned.filter((exchange) => !exchange.inWindow).length,
    cutoffMessage: cutoffExchange ? cutoffExchange.firstMessage : null,
    messages: windowMessages,
    syntheticResults,
    policy: input.cut.policy.name,
    clearedToolOutputs: [],
    clearedTokens: 0,
    cut,
  };
}
