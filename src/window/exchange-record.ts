import type { TokenCount } from '../tokens/token-counter.js';
import { groupByCallMessage, type UnansweredCall } from '../exchange/aborted-results.js';
import type { ToolPairing } from '../exchange/tool-pairing.js';

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
}

export const tokensOf = (exchange: ExchangeRecord) => exchange.messageTokens + exchange.syntheticTokens;

/** The synthetic result counts of an exchange, by the message whose calls they answer, in order. */
export const sortedGroupCounts = (exchange: ExchangeRecord) => [...exchange.groupCounts.entries()].sort(([a], [b]) => a - b);

/** The unanswered calls of each entry of {@link sortedGroupCounts}. */
export function abortedGroups(exchange: ExchangeRecord, entries: readonly (readonly [number, TokenCount])[]): (readonly UnansweredCall[])[] {
  const byCallMessage = groupByCallMessage(exchange.pairing.unanswered().map(([, call]) => call));
  return entries.map(([callMessage]) => byCallMessage.get(callMessage) ?? []);
}
