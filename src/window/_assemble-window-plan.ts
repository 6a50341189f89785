import type { ModelMessage } from '../message/message.js';
import { sumTokenCounts } from '../tokens/sum-token-counts.js';
import type { TokenCount } from '../tokens/token-counter.js';
import { insertAbortedResults, type UnansweredCall } from '../exchange/aborted-results.js';
import type { PlannedExchange, SyntheticResult, WindowPlan } from './window-plan.js';
import { type CutContext, describeCut } from './window-cut-report.js';
import { isHoistedPin, type PinAccount } from './pinned-message.js';

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
  /** The pinned messages, in message order. */
  readonly pins: readonly PinAccount[];
  /** The policy, and what is known of the previous cut, for the plan's `cut`. */
  readonly cut: CutContext;
}

/** Writes out the plan: totals, the exchange table, the cutoff and the messages to send. */
export function assembleWindowPlan(input: PlanInput): WindowPlan {
  const { exchanges, messages, messageCounts, firstInWindow } = input;
  const sent = (index: number) => (input.pinFirstExchange && index === 0) || index >= firstInWindow;
  const hoisted = input.pins.filter((pin) => pin.exchange !== null && !sent(pin.exchange));
  const pinnedCounts = [input.preambleCount, ...messageCounts.slice(0, input.preambleMessages), ...hoisted.map((pin) => pin.hoistedCount)];
  const windowCounts: TokenCount[] = [...pinnedCounts];
  const windowMessages: ModelMessage[] = [...messages.slice(0, input.preambleMessages), ...hoisted.map((pin) => pin.hoisted)];
  const syntheticResults: SyntheticResult[] = [];
  const planned: PlannedExchange[] = exchanges.map((exchange, index) => {
    const pinned = input.pinFirstExchange && index === 0;
    const inWindow = sent(index);
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
    hoistedTokens: sumTokenCounts(hoisted.map((pin) => pin.hoistedCount)).tokens,
    hoistedBefore: (first) => hoistedTokensBefore(input, first),
  }, input.cut);
  return {
    provider: input.provider,
    model: input.model,
    budgetTokens: input.budgetTokens,
    totalTokens: total.tokens,
    pinnedTokens: sumTokenCounts(pinnedCounts).tokens,
    pins: input.pins.map((pin) => {
      const inPlace = pin.exchange === null || sent(pin.exchange);
      return {
        message: pin.message,
        exchange: pin.exchange,
        placement: inPlace && !isHoistedPin(messages[pin.message] as ModelMessage) ? ('in-place' as const) : ('hoisted' as const),
        tokens: inPlace ? (messageCounts[pin.message]?.tokens ?? 0) : pin.hoistedCount.tokens,
      };
    }),
    floorTokens: floorTokens(input),
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

/** Tokens of the pins hoisted when the window starts at exchange `first` (a pinned first exchange stays). */
function hoistedTokensBefore(input: PlanInput, first: number): number {
  const firstUnpinned = input.pinFirstExchange ? 1 : 0;
  let tokens = 0;
  for (const pin of input.pins) if (pin.exchange !== null && pin.exchange >= firstUnpinned && pin.exchange < first) tokens += pin.hoistedCount.tokens;
  return tokens;
}

/** See `WindowPlan.floorTokens`. */
function floorTokens(input: PlanInput): number {
  const { exchanges } = input;
  const last = exchanges.length - 1;
  let tokens = input.preambleCount.tokens + hoistedTokensBefore(input, last) + (exchanges[last]?.tokens ?? 0);
  for (const count of input.messageCounts.slice(0, input.preambleMessages)) tokens += count.tokens;
  if (input.pinFirstExchange && last > 0) tokens += exchanges[0]?.tokens ?? 0;
  return tokens;
}
