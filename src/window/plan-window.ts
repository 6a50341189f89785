import { buildAbortedResultMessage, groupByCallMessage, groupsBetween } from '../exchange/aborted-results.js';
import { detectExchanges } from '../exchange/detect-exchanges.js';
import { requireValidConversation } from '../exchange/require-valid-conversation.js';
import { replayEvents } from '../message/apply-events.js';
import { requireMessages } from '../message/require-messages.js';
import { isModelMessage, type Message, type ToolDefinition } from '../message/message.js';
import { sumTokenCounts } from '../tokens/sum-token-counts.js';
import { DEFAULT_PROVIDER, defaultModelFor, type TokenCounter } from '../tokens/token-counter.js';
import { assembleWindowPlan, type ExchangeAccount } from './_assemble-window-plan.js';
import { checkWindowOptions } from './window-options.js';
import { clearOverBudgetToolOutputs } from './clear-tool-outputs.js';
import { followPreviousCut } from './follow-previous-cut.js';
import { chooseCut } from './window-cut.js';
import { accountPins, pinsByExchange } from './pin-accounts.js';
import type { WindowPlan } from './window-plan.js';
import { pinsFirstExchange, type WindowPolicy } from './window-policy.js';

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
  /** Messages (indices after events) pinned besides those the history's `pin` events pin. */
  readonly pins?: readonly number[] | undefined;
  /** How exchanges are chosen for eviction (default `cache-aware`). */
  readonly policy?: WindowPolicy | undefined;
  /**
   * The `cutoffMessage` of the plan made last time over the same history (before new messages
   * were added), for a policy that keeps its cut (`cache-aware`). It names the first exchange
   * the window kept. Give `previousMessageCount` too, so that a rewind or clear since then that
   * went back past the cut is seen (the cut is then dropped); leave it out for a first plan.
   */
  readonly previousCutoff?: number | null | undefined;
  /**
   * How many entries of `messages` (events included) the previous plan was made over: follows
   * `previousCutoff` through rewinds and tells where the head this request shares with the
   * previous one ends (see `WindowPlan.cut`).
   */
  readonly previousMessageCount?: number | undefined;
}

/** The previous cutoff message as an index among the exchanges a policy may evict. */
function previousCutIndex(exchanges: readonly ExchangeAccount[], previousCutoff: number | null | undefined, firstUnpinned: number): number | undefined {
  if (previousCutoff === undefined || previousCutoff === null) return undefined;
  const index = exchanges.findIndex((exchange) => exchange.firstMessage >= previousCutoff);
  return Math.max(0, (index === -1 ? exchanges.length : index) - firstUnpinned);
}

/**
 * Plans the window: evicts the oldest whole exchanges until the request's tokens are at or below
 * the budget (other policies may evict more, see {@link WindowPolicy}). The preamble, and the
 * first exchange when pinned, always stay; so does the latest exchange, even alone over budget,
 * which the plan then reports as `overBudget`. A pinned message (a `pin` event) is sent in every
 * window: in its exchange, or hoisted after the preamble when its exchange is evicted.
 * @throws SlidingContextError `INVALID_MESSAGE`, `INVALID_OPTION`, `BUDGET_INVALID` or `INVALID_POLICY` for bad input
 */
export function planWindow(options: PlanWindowOptions): WindowPlan {
  const { budgetTokens, policy } = checkWindowOptions(options, 'planWindow');
  requireMessages(options.messages);
  const provider = options.provider ?? DEFAULT_PROVIDER;
  const model = options.model ?? defaultModelFor(provider);
  const replayed = replayEvents(options.messages, (message) => message);
  const messages = replayed.visible.filter(isModelMessage);
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
  const pins = accountPins([...new Set([...replayed.pins, ...(options.pins ?? [])])], { messages, exchanges, counter, target });
  const preambleCount = counter.countPreamble({
    ...target,
    system: options.system,
    tools: options.tools,
  });
  const previous = followPreviousCut(options.messages, messages.length, options.previousCutoff, options.previousMessageCount);
  const pinFirstExchange = pinsFirstExchange(policy, options.pinFirstExchange);
  const firstUnpinned = pinFirstExchange ? 1 : 0;
  const pinned = pinFirstExchange ? exchanges[0] : undefined;
  const messagesOf = (exchange: ExchangeAccount) => exchange.lastMessage - exchange.firstMessage + 1 + exchange.groups.length;
  const previousCut = previousCutIndex(exchanges, previous.cutoff, firstUnpinned);
  // A pin of an exchange the policy may evict is counted as hoisted, in the fixed part; its
  // exchange, less the pin, in the rest: the sums are the request's whichever way the cut goes.
  const hoisted = pinsByExchange(pins, firstUnpinned);
  const firstInWindow = chooseCut(policy, {
    exchanges: exchanges
      .map((exchange, index) => {
        const pins = hoisted.byExchange.get(index);
        return { tokens: exchange.tokens - (pins?.tokens ?? 0), messages: messagesOf(exchange) - (pins?.messages ?? 0) };
      })
      .slice(firstUnpinned),
    fixedTokens: sumTokenCounts([preambleCount, ...messageCounts.slice(0, preambleMessages)]).tokens + (pinned?.tokens ?? 0) + hoisted.tokens,
    fixedMessages: preambleMessages + (pinned ? messagesOf(pinned) : 0) + hoisted.messages,
    fixedExchanges: firstUnpinned,
    budgetTokens,
    previousCut,
  }) + firstUnpinned;

  const plan = assembleWindowPlan({
    provider,
    model,
    budgetTokens,
    messages,
    messageCounts,
    preambleCount,
    preambleMessages,
    exchanges,
    pinFirstExchange,
    firstInWindow,
    pins,
    cut: {
      policy,
      previousExchange: previousCut === undefined ? undefined : previousCut + firstUnpinned,
      previousCutoff: previous.cutoff,
      dropped: previous.dropped,
      sharedMessages: previous.sharedMessages,
    },
  });
  if (policy.name !== 'clear-tool-outputs') return plan;
  const positions = new Map(messages.map((message, index) => [message, index]));
  return clearOverBudgetToolOutputs(plan, {
    policy,
    countMessage: (message) => counter.countMessage({ ...target, message }).tokens,
    storedAs: (message) => `message ${positions.get(message) ?? '?'}`,
  });
}
