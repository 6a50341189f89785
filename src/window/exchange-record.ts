import type { ModelMessage } from '../message/message.js';
import type { TokenCount } from '../tokens/token-counter.js';
import { buildAbortedResultMessage, groupByCallMessage, type UnansweredCall } from '../exchange/aborted-results.js';
import { ToolPairing } from '../exchange/tool-pairing.js';
import { toolPartsOf } from '../exchange/tool-parts.js';
import { pairingError } from '../exchange/require-valid-conversation.js';
import type { ExchangeAccount } from './_assemble-window-plan.js';
import type { CutInput } from './cut-input.js';

/** What a {@link WindowState} keeps of one exchange: its bounds, its counts and its pairing. */
export interface ExchangeRecord {
  readonly firstMessage: number;
  lastMessage: number;
  messageTokens: number;
  /** The exchange's calls and results; its unanswered calls in call order. */
  readonly pairing: ToolPairing<UnansweredCall>;
  /** Synthetic result message count for each message with unanswered calls. */
  readonly groupCounts: Map<number, TokenCount>;
  syntheticTokens: number;
  /** Tokens and number of its pinned messages as hoisted (0 for an exchange never evicted). */
  pinTokens: number;
  pinMessages: number;
}

/** The record of an exchange that opens at message `index`, whose first message counts `tokens`. */
export function newExchangeRecord(index: number, tokens: number): ExchangeRecord {
  return {
    firstMessage: index,
    lastMessage: index,
    messageTokens: tokens,
    pairing: new ToolPairing(),
    groupCounts: new Map(),
    syntheticTokens: 0,
    pinTokens: 0,
    pinMessages: 0,
  };
}

export const tokensOf = (exchange: ExchangeRecord) => exchange.messageTokens + exchange.syntheticTokens;

/** Messages an exchange sends: its own, and one synthetic result for each message with unanswered calls. */
const messagesOf = (exchange: ExchangeRecord) => exchange.lastMessage - exchange.firstMessage + 1 + exchange.groupCounts.size;

/** Its tokens less its pins': what evicting it saves, since its pins are then hoisted. */
export const unpinnedTokensOf = (exchange: ExchangeRecord) => tokensOf(exchange) - exchange.pinTokens;

/** The synthetic result counts of an exchange, by the message whose calls they answer, in order. */
export const sortedGroupCounts = (exchange: ExchangeRecord) => [...exchange.groupCounts.entries()].sort(([a], [b]) => a - b);

/** The unanswered calls of each entry of {@link sortedGroupCounts}. */
export function abortedGroups(exchange: ExchangeRecord, entries: readonly (readonly [number, TokenCount])[]): (readonly UnansweredCall[])[] {
  const byCallMessage = groupByCallMessage(exchange.pairing.unanswered().map(([, call]) => call));
  return entries.map(([callMessage]) => byCallMessage.get(callMessage) ?? []);
}

/**
 * Feeds a message's calls and results to a pairing; returns the call messages whose unanswered
 * calls changed.
 * @throws SlidingContextError for the first part that breaks the pairing.
 */
export function pairParts(pairing: ToolPairing<UnansweredCall>, parts: ReturnType<typeof toolPartsOf>, index: number): Set<number> {
  const touched = new Set<number>();
  for (const { part, partIndex } of parts) {
    const toolCallId = part.toolCallId;
    if (part.type === 'tool-call') {
      const problem = pairing.call(toolCallId, { toolCallId, toolName: part.toolName, callMessage: index });
      if (problem) throw pairingError({ code: problem, messageIndex: index, partIndex, toolCallId });
      touched.add(index);
      continue;
    }
    const paired = pairing.result(toolCallId);
    if (paired.problem) throw pairingError({ code: paired.problem, messageIndex: index, partIndex, toolCallId });
    touched.add(paired.call.callMessage);
  }
  return touched;
}

/** Index of the first exchange that starts at or after message `messageIndex` (the count of exchanges when none does), by halving. */
export function firstExchangeFrom(exchanges: readonly { readonly firstMessage: number }[], messageIndex: number): number {
  let low = 0;
  let high = exchanges.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((exchanges[middle] as { firstMessage: number }).firstMessage >= messageIndex) high = middle;
    else low = middle + 1;
  }
  return low;
}

/**
 * Tries a message's calls and results, in part order, on a copy of the exchange's pairing: the
 * exchange is left as it was.
 * @throws SlidingContextError for the first part that would break the pairing.
 */
export function requireValidPairing(exchange: ExchangeRecord, message: ModelMessage, index: number): void {
  const parts = toolPartsOf(message);
  if (parts.length > 0) pairParts(exchange.pairing.copy(new Set(parts.map(({ part }) => part.toolCallId))), parts, index);
}

/**
 * Adds message `index`, of `tokens`, to the exchange, pairing its calls and results and counting
 * again (with `countMessage`) the synthetic results that changed. Returns the change in the
 * exchange's tokens.
 * @throws SlidingContextError for the first part that breaks the pairing.
 */
export function addToExchange(
  exchange: ExchangeRecord,
  message: ModelMessage,
  index: number,
  tokens: number,
  countMessage: (message: ModelMessage) => TokenCount,
): number {
  const before = tokensOf(exchange);
  exchange.lastMessage = index;
  exchange.messageTokens += tokens;
  for (const callMessage of pairParts(exchange.pairing, toolPartsOf(message), index)) recountGroup(exchange, callMessage, countMessage);
  return tokensOf(exchange) - before;
}

/**
 * Counts again the synthetic result for the unanswered calls of message `callMessage` (with
 * `countMessage`), or drops its count when none is left; `syntheticTokens` follows.
 */
function recountGroup(exchange: ExchangeRecord, callMessage: number, countMessage: (message: ModelMessage) => TokenCount): void {
  const previous = exchange.groupCounts.get(callMessage);
  if (previous) exchange.syntheticTokens -= previous.tokens;
  const group = exchange.pairing.unanswered().map(([, call]) => call).filter((call) => call.callMessage === callMessage);
  if (group.length === 0) {
    exchange.groupCounts.delete(callMessage);
    return;
  }
  const count = countMessage(buildAbortedResultMessage(group));
  exchange.groupCounts.set(callMessage, count);
  exchange.syntheticTokens += count.tokens;
}

/** What a plan takes of an exchange: its bounds, its groups of unanswered calls with their counts, its tokens. */
export function exchangeAccountOf(exchange: ExchangeRecord): ExchangeAccount {
  const entries = sortedGroupCounts(exchange);
  return {
    firstMessage: exchange.firstMessage,
    lastMessage: exchange.lastMessage,
    groups: abortedGroups(exchange, entries),
    groupCounts: entries.map(([, count]) => count),
    tokens: tokensOf(exchange),
  };
}

/** What is always sent besides the exchanges a policy may evict, in tokens and messages. */
export interface FixedPart {
  /** 1 when the first exchange is pinned (then it is always sent), else 0. */
  readonly exchanges: number;
  /** The preamble and the pins hoisted from evictable exchanges. */
  readonly tokens: number;
  readonly messages: number;
}

/**
 * What `chooseCut` chooses from over the exchanges a window state holds: each one it may evict,
 * less its pins (hoisted, they are in `fixed`), and what is always sent.
 */
export function cutInputOf(exchanges: readonly ExchangeRecord[], fixed: FixedPart, budgetTokens: number, previousCut: number | undefined): CutInput {
  const pinned = fixed.exchanges === 1 ? exchanges[0] : undefined;
  return {
    exchanges: exchanges
      .slice(fixed.exchanges)
      .map((exchange) => ({ tokens: unpinnedTokensOf(exchange), messages: messagesOf(exchange) - exchange.pinMessages })),
    fixedTokens: fixed.tokens + (pinned ? tokensOf(pinned) : 0),
    fixedMessages: fixed.messages + (pinned ? messagesOf(pinned) : 0),
    fixedExchanges: fixed.exchanges,
    budgetTokens,
    previousCut,
  };
}
