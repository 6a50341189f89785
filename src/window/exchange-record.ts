import type { TokenCount } from '../tokens/token-counter.js';
import { groupByCallMessage, type UnansweredCall } from '../exchange/aborted-results.js';
import type { ToolPairing } from '../exchange/tool-pairing.js';
import type { toolPartsOf } from '../exchange/tool-parts.js';
import { pairingError } from '../exchange/require-valid-conversation.js';

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

export const tokensOf = (exchange: ExchangeRecord) => exchange.messageTokens + exchange.syntheticTokens;

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
