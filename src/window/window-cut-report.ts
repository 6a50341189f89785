import { lowWaterTokens } from './cache-aware-policy.js';
import type { WindowPolicy } from './window-policy.js';

/**
 * Why the cut is where it is: `fits` (the request fits with the previous cut, so it stayed),
 * `over-budget` (with the previous cut the request would pass the budget, so it moved),
 * `policy` (the policy chose another cut although the request fit: `budget` brings exchanges
 * back, `fraction` and `sequence` choose afresh), `first-plan` (no previous cut was given),
 * `previous-cut-dropped` (a rewind or clear removed the message before the previous cut) and
 * `windowing-disabled` (budget 0).
 */
export type CutReason = 'fits' | 'over-budget' | 'policy' | 'first-plan' | 'previous-cut-dropped' | 'windowing-disabled';

/** Where the request's stable head ends: the part the previous request sent too, which the provider's prompt cache can serve. */
export interface StablePrefixEnd {
  /** Index (after events) of its last message; null when it holds only the system prompt and tools. */
  readonly message: number | null;
  /** Index of the exchange that message belongs to; null for a leading system message or none. */
  readonly exchange: number | null;
  /** Tokens of the request up to and including that message. */
  readonly tokens: number;
}

/** Where the window's cut is, where it was, and why it moved or stayed. */
export interface WindowCut {
  /** The previous cut's first message as the planner took it; null for none (or one dropped). */
  readonly previousCutoff: number | null;
  /** Index of the exchange the previous cut kept first; null for none. */
  readonly previousExchange: number | null;
  /** The plan's `cutoffMessage`. */
  readonly cutoff: number | null;
  /** Index of the first exchange after the cut (a pinned first exchange is not counted); null for none. */
  readonly exchange: number | null;
  /** True when the window starts elsewhere than the previous cut (without one: when anything was evicted). */
  readonly moved: boolean;
  readonly reason: CutReason;
  /** Tokens of the request had the cut stayed at the previous one (without one: with nothing evicted). */
  readonly tokensAtPreviousCut: number;
  /** Tokens a moving `cache-aware` cut goes down to; null for other policies or no budget. */
  readonly lowWaterTokens: number | null;
  readonly stablePrefixEnd: StablePrefixEnd;
}

/** What a planner knows of the previous cut, for {@link describeCut}. */
export interface CutContext {
  readonly policy: WindowPolicy;
  /** Index of the exchange the previous cut kept first (before clamping), or undefined for none. */
  readonly previousExchange?: number | undefined;
  readonly previousCutoff?: number | null | undefined;
  /** True when a rewind or clear removed the message before the previous cut. */
  readonly dropped?: boolean | undefined;
  /**
   * How many leading messages (after events) the previous request held unchanged. Unknown: the
   * previous request is taken to end before the latest exchange, as the request builders take it.
   */
  readonly sharedMessages?: number | undefined;
}

/** The exchange bounds and counts {@link describeCut} reads. */
export interface CutAccount {
  readonly exchanges: readonly { readonly firstMessage: number; readonly lastMessage: number; readonly tokens: number }[];
  /** Tokens of each message, by index after events. */
  readonly messageTokens: (index: number) => number;
  /** Tokens of the framing, system prompt and tools (without leading system messages). */
  readonly preambleTokens: number;
  readonly preambleMessages: number;
  readonly pinFirstExchange: boolean;
  /** Index of the first non-pinned exchange in the window; `exchanges.length` when none is. */
  readonly firstInWindow: number;
  readonly budgetTokens: number;
  readonly totalTokens: number;
  readonly overBudget: boolean;
  /** Tokens of the pins hoisted into the preamble now. */
  readonly hoistedTokens: number;
  /** Tokens of the pins that would be hoisted were the window to start at exchange `first`. */
  readonly hoistedBefore: (first: number) => number;
}

/** Describes the cut of a plan: where it was, where it is, why, and where the stable prefix ends. */
export function describeCut(account: CutAccount, context: CutContext): WindowCut {
  const { exchanges } = account;
  const firstUnpinned = account.pinFirstExchange ? 1 : 0;
  const last = exchanges.length - 1;
  const exchange = account.firstInWindow <= last ? Math.max(account.firstInWindow, firstUnpinned) : null;
  const previousExchange =
    context.previousExchange === undefined || last < firstUnpinned ? null : Math.min(Math.max(context.previousExchange, firstUnpinned), last);
  const from = previousExchange ?? firstUnpinned;
  let tokensAtPreviousCut = account.totalTokens;
  if (exchange !== null && from !== exchange) {
    tokensAtPreviousCut = account.preambleTokens + account.hoistedBefore(from);
    for (let index = 0; index < account.preambleMessages; index++) tokensAtPreviousCut += account.messageTokens(index);
    for (const [index, each] of exchanges.entries()) if (index >= from || (index === 0 && account.pinFirstExchange)) tokensAtPreviousCut += each.tokens;
  }
  const moved = exchange !== null && from !== exchange;
  let reason: CutReason;
  if (account.budgetTokens === 0) reason = 'windowing-disabled';
  else if (previousExchange === null) reason = context.dropped ? 'previous-cut-dropped' : 'first-plan';
  else if (tokensAtPreviousCut > account.budgetTokens) reason = 'over-budget';
  else reason = moved ? 'policy' : 'fits';
  const policy = context.policy;
  return {
    previousCutoff: previousExchange === null ? null : (context.previousCutoff ?? null),
    previousExchange,
    cutoff: exchange === null ? null : (exchanges[exchange]?.firstMessage ?? null),
    exchange,
    moved,
    reason,
    tokensAtPreviousCut,
    lowWaterTokens: policy.name === 'cache-aware' && account.budgetTokens > 0 ? lowWaterTokens(policy, account.budgetTokens) : null,
    stablePrefixEnd: stablePrefixEnd(account, context, moved),
  };
}

/**
 * The end of the head this request shares with the previous one. A moved cut changes everything
 * after the pinned part; a request over budget may have the latest exchange's tool outputs
 * cleared, so its head ends before that exchange.
 */
function stablePrefixEnd(account: CutAccount, context: CutContext, moved: boolean): StablePrefixEnd {
  const { exchanges } = account;
  const latest = exchanges.at(-1);
  let shared = context.sharedMessages ?? latest?.firstMessage ?? account.preambleMessages;
  if (account.overBudget && latest) shared = Math.min(shared, latest.firstMessage);
  const pinned = account.pinFirstExchange ? exchanges[0] : undefined;
  if (moved) shared = Math.min(shared, pinned ? pinned.lastMessage + 1 : account.preambleMessages);
  let tokens = account.preambleTokens;
  let message: number | null = null;
  let exchange: number | null = null;
  for (let index = 0; index < Math.min(shared, account.preambleMessages); index++) {
    tokens += account.messageTokens(index);
    message = index;
  }
  for (const [index, each] of exchanges.entries()) {
    const sent = index >= account.firstInWindow || each === pinned;
    if (!sent || each.firstMessage >= shared) continue;
    exchange = index;
    if (each.lastMessage < shared) {
      tokens += each.tokens;
      message = each.lastMessage;
      continue;
    }
    for (let position = each.firstMessage; position < shared; position++) tokens += account.messageTokens(position);
    message = shared - 1;
  }
  // The hoisted pins lie between the leading system messages and the first exchange sent.
  if (exchange !== null) tokens += account.hoistedTokens;
  return { message, exchange, tokens };
}
