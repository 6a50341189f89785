import { buildAbortedResultMessage, groupByCallMessage, groupsBetween } from '../exchange/aborted-results.js';
import { detectExchanges } from '../exchange/detect-exchanges.js';
import { requireValidConversation } from '../exchange/require-valid-conversation.js';
import { applyEvents } from '../message/apply-events.js';
import type { Message, ToolDefinition } from '../message/message.js';
import { sumTokenCounts } from '../tokens/sum-token-counts.js';
import { DEFAULT_MODEL, DEFAULT_PROVIDER, type TokenCounter } from '../tokens/token-counter.js';
import { assembleWindowPlan, type ExchangeAccount } from './_assemble-window-plan.js';
import { DEFAULT_BUDGET_TOKENS, validateBudgetTokens } from './budget-tokens.js';
import type { WindowPlan } from './window-plan.js';

/** What to plan a window over. */
export interface PlanWindowOptions {
  readonly system?: string | undefined;
  readonly tools?: readonly ToolDefinition[] | undefined;
  /** The history; events are applied first, and plan indices refer to the result. */
  readonly messages: readonly Message[];
  /** Ceiling in tokens; 0 disables windowing. Defaults to 100,000. */
  readonly budgetTokens?: number | undefined;
  readonly counter: TokenCounter;
  readonly provider?: string | undefined;
  readonly model?: string | undefined;
  /** Keep the first exchange (usually the task) in every window. */
  readonly pinFirstExchange?: boolean | undefined;
}

/**
 * Plans the window: evicts the oldest whole exchanges until the request's tokens are at or below
 * the budget. The preamble, and the first exchange when pinned, always stay; so does the latest
 * exchange, even alone over budget, which the plan then reports as `overBudget`.
 */
export function planWindow(options: PlanWindowOptions): WindowPlan {
  const provider = options.provider ?? DEFAULT_PROVIDER;
  const model = options.model ?? DEFAULT_MODEL;
  const budgetTokens = validateBudgetTokens(options.budgetTokens ?? DEFAULT_BUDGET_TOKENS);
  const messages = applyEvents(options.messages);
  const unansweredCalls = requireValidConversation(messages);

  const target = { provider, model };
  const { counter } = options;
  const messageCounts = messages.map((message) => counter.countMessage({ ...target, message }));
  const unanswered = groupByCallMessage(unansweredCalls);

  const exchanges: ExchangeAccount[] = detectExchanges(messages).map((exchange) => {
    const groups = groupsBetween(unanswered, exchange.firstMessage, exchange.lastMessage);
    const groupCounts = groups.map((group) =>
      counter.countMessage({ ...target, message: buildAbortedResultMessage(group) }),
    );
    const counts = [
      ...messageCounts.slice(exchange.firstMessage, exchange.lastMessage + 1),
      ...groupCounts,
    ];
    return { ...exchange, groups, groupCounts, tokens: sumTokenCounts(counts).tokens };
  });

  const preambleMessages = exchanges[0]?.firstMessage ?? messages.length;
  const preambleCount = counter.countPreamble({
    ...target,
    system: options.system,
    tools: options.tools,
  });
  const pinFirstExchange = options.pinFirstExchange === true;
  const firstUnpinned = pinFirstExchange ? 1 : 0;

  let total = sumTokenCounts([preambleCount, ...messageCounts.slice(0, preambleMessages)]).tokens;
  if (pinFirstExchange) total += exchanges[0]?.tokens ?? 0;
  let firstInWindow = exchanges.length;
  for (let index = exchanges.length - 1; index >= firstUnpinned; index--) {
    const tokens = (exchanges[index] as ExchangeAccount).tokens;
    const isLatest = index === exchanges.length - 1;
    if (!isLatest && budgetTokens > 0 && total + tokens > budgetTokens) break;
    total += tokens;
    firstInWindow = index;
  }

  return assembleWindowPlan({
    provider,
    model,
    budgetTokens,
    messages,
    messageCounts,
    preambleCount,
    preambleMessages,
    exchanges,
    pinFirstExchange,
    firstInWindow: Math.max(firstInWindow, firstUnpinned),
  });
}
