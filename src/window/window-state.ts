import { startsExchange } from '../exchange/detect-exchanges.js';
import { leadInError } from '../exchange/require-valid-conversation.js';
import { type ActiveMark, findRewindTarget } from '../message/apply-events.js';
import type { Message, ModelMessage } from '../message/message.js';
import { DEFAULT_PROVIDER, defaultModelFor, type TokenCount } from '../tokens/token-counter.js';
import { assembleWindowPlan } from './_assemble-window-plan.js';
import { abortedGroups, addToExchange, cutInputOf, exchangeAccountOf, type ExchangeRecord, firstExchangeFrom, newExchangeRecord, requireValidPairing, sortedGroupCounts, tokensOf, unpinnedTokensOf } from './exchange-record.js';
import { pinEventTarget } from '../message/pin-event.js';
import { hoistedPinMessage, type PinAccount } from './pinned-message.js';
import { exchangeHolding, PinLedger } from './_pin-ledger.js';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import { insertAbortedResults } from '../exchange/aborted-results.js';
import { validateBudgetTokensOption } from './budget-tokens.js';
import { checkWindowOptions } from './window-options.js';
import { requireMessages } from '../message/require-messages.js';
import { clearOverBudgetToolOutputs } from './clear-tool-outputs.js';
import { lowWaterTokens } from './cache-aware-policy.js';
import { chooseCut } from './window-cut.js';
import type { WindowPlan } from './window-plan.js';
import type { CutContext } from './window-cut-report.js';
import { PreviousCut } from './_previous-cut.js';
import { type ClearToolOutputsPolicy, pinsFirstExchange, type WindowPolicy } from './window-policy.js';
import type { PruneResult, WindowStateOptions } from './window-state-options.js';

export type { PruneResult, WindowStateOptions } from './window-state-options.js';

/**
 * The incremental form of `planWindow`. `append` then `prune` after a turn costs time in
 * proportion to the new messages plus the exchanges evicted, not to the history's length;
 * `plan()` writes out exactly the plan `planWindow` gives for the same messages.
 */
export class WindowState {
  readonly #options: WindowStateOptions;
  readonly #target: { provider: string; model: string };
  readonly #preambleCount: TokenCount;
  readonly #policy: WindowPolicy;
  #budgetTokens: number;
  #messages: ModelMessage[] = [];
  #messageCounts: TokenCount[] = [];
  #marks: ActiveMark[] = [];
  #exchanges: ExchangeRecord[] = [];
  #preambleMessages = 0;
  #preambleTokens: number;
  #firstInWindow: number;
  /** Tokens of the exchanges in the window from the cut on, less their pins (see `unpinnedTokensOf`). */
  #windowTokens = 0;
  #appended = 0;
  readonly #pinLedger = new PinLedger();
  readonly #previousCut = new PreviousCut();
  /** What the last prune knew of the cut before it, for the plan's `cut`. */
  #cutContext: CutContext | undefined;
  /** Counts a message for the target (made once: appending allocates no callback per message). */
  readonly #countMessage = (message: ModelMessage): TokenCount => this.#options.counter.countMessage({ ...this.#target, message });

  /** @throws SlidingContextError `INVALID_OPTION`, `BUDGET_INVALID` or `INVALID_POLICY` for bad options */
  constructor(options: WindowStateOptions) {
    const { budgetTokens, policy } = checkWindowOptions(options, 'WindowState');
    this.#options = options;
    this.#policy = policy;
    const provider = options.provider ?? DEFAULT_PROVIDER;
    this.#target = { provider, model: options.model ?? defaultModelFor(provider) };
    this.#budgetTokens = budgetTokens;
    this.#preambleCount = options.counter.countPreamble({
      ...this.#target,
      system: options.system,
      tools: options.tools,
    });
    this.#preambleTokens = this.#preambleCount.tokens;
    this.#firstInWindow = this.#firstUnpinned;
  }

  get #firstUnpinned(): number {
    return pinsFirstExchange(this.#policy, this.#options.pinFirstExchange) ? 1 : 0;
  }

  /** Tokens of the request the window builds now (before any pending prune). */
  get totalTokens(): number {
    const pinnedExchange = this.#firstUnpinned === 1 ? this.#exchanges[0] : undefined;
    return this.#preambleTokens + (pinnedExchange ? tokensOf(pinnedExchange) : 0) + this.#pinLedger.tokens + this.#windowTokens;
  }

  /** Exchanges held before the window (a pinned first exchange is not counted). */
  get evictedExchanges(): number {
    return Math.max(0, Math.min(this.#firstInWindow, this.#exchanges.length) - this.#firstUnpinned);
  }

  get budgetTokens(): number {
    return this.#budgetTokens;
  }

  /** Changes the budget; takes effect at the next `prune()`. */
  setBudgetTokens(budgetTokens: number): void {
    this.#budgetTokens = validateBudgetTokensOption(budgetTokens);
  }

  /**
   * Adds messages, events included. A message that would make the conversation invalid is
   * rejected with the same error `planWindow` gives; the messages before it stay applied.
   * A message of the wrong shape is refused before any is applied.
   * @throws SlidingContextError `INVALID_MESSAGE` naming its index in `messages` and the field
   */
  append(messages: readonly Message[]): this {
    requireMessages(messages);
    for (const message of messages) {
      const where = `appended message ${this.#appended}`;
      if (message.role === 'event') this.#applyEvent(message, where);
      else this.#appendModelMessage(message);
      this.#appended++;
    }
    return this;
  }

  /**
   * Evicts the oldest exchanges until within budget, or brings evicted ones back if they fit.
   * The `fraction` and `sequence` policies choose again over every exchange held, in time
   * proportional to them; the budget does it in time proportional to the change.
   */
  prune(): PruneResult {
    const evicted: number[] = [];
    const readmitted: number[] = [];
    const last = this.#exchanges.length - 1;
    const budget = this.#budgetTokens;
    const fits = (extra: number) => budget === 0 || this.totalTokens + extra <= budget;
    const policy = this.#policy;
    this.#cutContext = this.#previousCut.context(policy);
    // A rewind may have removed the exchange the cut kept first: the latest one stays.
    if (this.#firstInWindow > last && last >= this.#firstUnpinned) this.#moveCut(last, evicted, readmitted);
    if (policy.name === 'fraction' || policy.name === 'sequence') this.#moveCut(this.#policyCut(policy), evicted, readmitted);
    if (policy.name === 'cache-aware' && budget === 0) this.#moveCut(this.#firstUnpinned, evicted, readmitted);
    // A cache-aware cut moves only when the request would pass the budget, and then to the low-water mark.
    const floor = policy.name === 'cache-aware' && !fits(0) ? lowWaterTokens(policy, budget) : budget;
    while (this.#firstInWindow < last && budget > 0 && this.totalTokens > floor) {
      this.#windowTokens -= unpinnedTokensOf(this.#exchanges[this.#firstInWindow] as ExchangeRecord);
      evicted.push(this.#firstInWindow);
      this.#firstInWindow++;
    }
    while ((policy.name === 'budget' || policy.name === 'clear-tool-outputs') && this.#firstInWindow > this.#firstUnpinned) {
      const previous = this.#exchanges[this.#firstInWindow - 1] as ExchangeRecord;
      if (!fits(unpinnedTokensOf(previous))) break;
      this.#windowTokens += unpinnedTokensOf(previous);
      this.#firstInWindow--;
      readmitted.push(this.#firstInWindow);
    }
    this.#previousCut.note(this.cutExchange, this.#exchanges[this.cutExchange]?.firstMessage, this.#messages.length);
    const totalTokens = this.totalTokens;
    const overBudget = budget > 0 && totalTokens > budget;
    return {
      evicted,
      readmitted,
      totalTokens,
      overBudget,
      overByTokens: overBudget ? totalTokens - budget : 0,
    };
  }

  /**
   * Places the cut where `planWindow` places it over the same messages when given
   * `previousCutoff` and no `previousMessageCount` (a view that plans a stored history afresh
   * from the cut kept for it), in time proportional to the exchanges held; the next `plan()`
   * reports it so. For a planner that holds one state while the history grows.
   */
  placeCut(previousCutoff: number | null | undefined): void {
    const policy = this.#policy;
    const unpinned = this.#firstUnpinned;
    // A cut past the end of what the model sees names no message now: it is dropped.
    const dropped = previousCutoff !== undefined && previousCutoff !== null && previousCutoff > this.#messages.length;
    const cutoff = dropped ? undefined : (previousCutoff ?? undefined);
    const previousCut = cutoff === undefined ? undefined : Math.max(0, firstExchangeFrom(this.#exchanges, cutoff) - unpinned);
    // A clear or rewind may have left the cut past the exchanges held, where it counts none.
    this.#firstInWindow = Math.min(this.#firstInWindow, Math.max(this.#exchanges.length, unpinned));
    this.#moveCut(this.#policyCut(policy, previousCut), [], []);
    const previousExchange = previousCut === undefined ? undefined : previousCut + unpinned;
    this.#cutContext = { policy, previousExchange, previousCutoff: cutoff, dropped, sharedMessages: undefined };
  }

  /** The cut the policy chooses over every exchange held (a `cache-aware` one from `previousCut`). */
  #policyCut(policy: WindowPolicy, previousCut?: number): number {
    const tokens = this.#preambleTokens + this.#pinLedger.tokens;
    const fixed = { exchanges: this.#firstUnpinned, tokens, messages: this.#preambleMessages + this.#pinLedger.messages };
    return chooseCut(policy, cutInputOf(this.#exchanges, fixed, this.#budgetTokens, previousCut)) + this.#firstUnpinned;
  }

  /** Moves the cut to `first`, noting the exchanges that left or came back. */
  #moveCut(first: number, evicted: number[], readmitted: number[]): void {
    while (this.#firstInWindow < first) {
      this.#windowTokens -= unpinnedTokensOf(this.#exchanges[this.#firstInWindow] as ExchangeRecord);
      evicted.push(this.#firstInWindow++);
    }
    while (this.#firstInWindow > first) {
      this.#firstInWindow--;
      this.#windowTokens += unpinnedTokensOf(this.#exchanges[this.#firstInWindow] as ExchangeRecord);
      readmitted.push(this.#firstInWindow);
    }
  }

  /** Index of the first exchange after the cutoff (a pinned first exchange is not counted as one). */
  get cutExchange(): number {
    return Math.max(this.#firstInWindow, this.#firstUnpinned);
  }

  /** Puts the cut back where it was kept (a `cache-aware` window loaded again); the next `prune()` may move it. */
  restoreCut(exchange: number): void {
    this.#moveCut(Math.max(this.#firstUnpinned, Math.min(exchange, this.#exchanges.length - 1)), [], []);
    this.#previousCut.note(this.cutExchange, this.#exchanges[this.cutExchange]?.firstMessage, undefined);
  }

  /** First and last message index of an exchange, or undefined when there is no such exchange. */
  exchangeBounds(index: number): { readonly firstMessage: number; readonly lastMessage: number } | undefined {
    const exchange = this.#exchanges[index];
    return exchange && { firstMessage: exchange.firstMessage, lastMessage: exchange.lastMessage };
  }

  /** The message at an index (after events), or undefined. */
  messageAt(index: number): ModelMessage | undefined {
    return this.#messages[index];
  }

  /** The messages of an exchange, as appended (without synthetic results). */
  exchangeMessages(index: number): readonly ModelMessage[] {
    const exchange = this.#exchanges[index];
    return exchange ? this.#messages.slice(exchange.firstMessage, exchange.lastMessage + 1) : [];
  }

  /**
   * Writes out the current plan, as `planWindow` would for the same messages. `clearToolOutputs`
   * clears old tool outputs of an exchange over budget on its own whatever the policy.
   */
  plan(options: { readonly clearToolOutputs?: ClearToolOutputsPolicy | undefined } = {}): WindowPlan {
    const plan = assembleWindowPlan({
      ...this.#target,
      budgetTokens: this.#budgetTokens,
      messages: this.#messages,
      messageCounts: this.#messageCounts,
      preambleCount: this.#preambleCount,
      preambleMessages: this.#preambleMessages,
      exchanges: this.#exchanges.map((exchange) => exchangeAccountOf(exchange)),
      pinFirstExchange: this.#firstUnpinned === 1,
      firstInWindow: Math.min(this.#firstInWindow, this.#exchanges.length),
      pins: this.#pinLedger.sorted(),
      cut: this.#cutContext ?? { policy: this.#policy },
    });
    const policy = this.#policy.name === 'clear-tool-outputs' ? this.#policy : options.clearToolOutputs;
    if (!policy || !plan.overBudget) return plan;
    const positions = new Map(this.#messages.map((message, index) => [message, index]));
    const storedAs = this.#options.storedAs ?? ((index: number) => `message ${index}`);
    return clearOverBudgetToolOutputs(plan, {
      policy,
      countMessage: (message) => this.#countMessage(message).tokens,
      storedAs: (message) => storedAs(positions.get(message) ?? -1),
    });
  }

  /**
   * The messages of {@link plan}, in time proportional to the window rather than the history:
   * what to send after `append` and `prune` on a long conversation.
   */
  windowMessages(): readonly ModelMessage[] {
    const budget = this.#budgetTokens;
    // Clearing tool outputs rewrites messages: only the whole plan knows which.
    if (this.#policy.name === 'clear-tool-outputs' && budget > 0 && this.totalTokens > budget) return this.plan().messages;
    const messages = this.#messages.slice(0, this.#preambleMessages);
    const sent = this.#firstUnpinned === 1 && this.#exchanges.length > 0 ? [0] : [];
    for (let index = Math.max(this.#firstInWindow, this.#firstUnpinned); index < this.#exchanges.length; index++) sent.push(index);
    for (const pin of this.#pinLedger.sorted()) if (pin.exchange !== null && !this.#isSent(pin.exchange)) messages.push(pin.hoisted);
    for (const index of sent) {
      const exchange = this.#exchanges[index] as ExchangeRecord;
      const groups = abortedGroups(exchange, sortedGroupCounts(exchange));
      const exchangeMessages = insertAbortedResults(this.#messages, exchange.firstMessage, exchange.lastMessage, groups);
      // One push per message: an exchange may hold more messages than a call takes arguments.
      for (const message of exchangeMessages) messages.push(message);
    }
    return messages;
  }

  #isCounted(exchangeIndex: number): boolean {
    return exchangeIndex >= this.#firstUnpinned && exchangeIndex >= this.#firstInWindow;
  }

  #isSent(exchangeIndex: number): boolean {
    return exchangeIndex < this.#firstUnpinned || exchangeIndex >= this.#firstInWindow;
  }

  /** Indices of the pinned messages, in order. */
  get pins(): readonly number[] {
    return this.#pinLedger.sorted().map((pin) => pin.message);
  }

  /**
   * Pins the message at `messageIndex` (as a `pin` event does): it is sent in every window, in
   * its exchange or hoisted after the preamble. Takes effect at once; the next `prune()` may
   * evict more to make room for it.
   * @throws SlidingContextError `INVALID_PIN` for no such message, or one that cannot be pinned (see `pinnedText`)
   */
  pin(messageIndex: number): void {
    if (this.#pinLedger.has(messageIndex)) return;
    const message = this.#messages[messageIndex];
    if (!message) throw new SlidingContextError('INVALID_PIN', `Cannot pin message ${messageIndex}: the window holds ${this.#messages.length} messages.`);
    const hoisted = hoistedPinMessage(message, `message ${messageIndex}`);
    const hoistedCount = this.#countMessage(hoisted);
    this.#accountPin({ message: messageIndex, exchange: exchangeHolding(this.#exchanges, messageIndex), hoisted, hoistedCount }, 1);
  }

  /** Unpins the message at `messageIndex` (as an `unpin` event does); nothing happens when it is not pinned. */
  unpin(messageIndex: number): void {
    const account = this.#pinLedger.get(messageIndex);
    if (account) this.#accountPin(account, -1);
  }

  /** Counts a pin in or out: as hoisted, and its exchange less it, when the window may evict that exchange. */
  #accountPin(pin: PinAccount, sign: 1 | -1): void {
    const { exchange } = pin;
    const evictable = exchange !== null && exchange >= this.#firstUnpinned;
    const delta = this.#pinLedger.account(pin, sign, evictable ? this.#exchanges[exchange] : undefined);
    if (evictable && this.#isCounted(exchange)) this.#windowTokens += delta;
  }

  #applyEvent(message: Extract<Message, { role: 'event' }>, where: string): void {
    const { kind, label } = message;
    if (kind === 'clear') {
      for (const index of this.pins) this.unpin(index);
      this.#truncate(0);
      this.#marks = [];
    } else if (kind === 'mark') {
      this.#marks.push({ label, position: this.#messages.length, pins: this.pins });
    } else if (kind === 'rewind') {
      const target = findRewindTarget(this.#marks, label, where);
      const mark = this.#marks[target] as ActiveMark;
      // The pins of the mark's time come back; the messages pinned since may be gone.
      for (const index of this.pins) this.unpin(index);
      this.#truncate(mark.position);
      this.#marks.length = target + 1;
      for (const index of mark.pins ?? []) this.pin(index);
    } else if (kind === 'pin' || kind === 'unpin') {
      const index = pinEventTarget(message, this.#messages.length, where);
      if (kind === 'pin') this.pin(index);
      else this.unpin(index);
    }
  }

  #appendModelMessage(message: ModelMessage): void {
    const index = this.#messages.length;
    const current = this.#exchanges.at(-1);
    const opensExchange = startsExchange(message);
    if (!current && !opensExchange && message.role !== 'system') {
      throw leadInError(index, message.role);
    }
    if (current && !opensExchange) requireValidPairing(current, message, index);

    const count = this.#countMessage(message);
    this.#messages.push(message);
    this.#messageCounts.push(count);
    if (!current && !opensExchange) {
      this.#preambleMessages++;
      this.#preambleTokens += count.tokens;
      return;
    }
    if (opensExchange) {
      this.#exchanges.push(newExchangeRecord(index, count.tokens));
      if (this.#isCounted(this.#exchanges.length - 1)) this.#windowTokens += count.tokens;
      return;
    }
    const addedTokens = addToExchange(current as ExchangeRecord, message, index, count.tokens, this.#countMessage);
    if (this.#isCounted(this.#exchanges.length - 1)) this.#windowTokens += addedTokens;
  }

  /** Drops every message from `length` on, as a clear or a rewind does, and rebuilds the tail. */
  #truncate(length: number): void {
    // The cut names its place by message index: one whose last evicted message is gone is dropped.
    const dropsCut = this.#previousCut.truncated(length);
    if (length >= this.#messages.length) return;
    const kept = this.#messages.slice(0, length);
    while (this.#exchanges.length > 0 && (this.#exchanges.at(-1) as ExchangeRecord).firstMessage >= length) {
      const removed = this.#exchanges.pop() as ExchangeRecord;
      if (this.#isCounted(this.#exchanges.length)) this.#windowTokens -= tokensOf(removed);
    }
    const tail = this.#exchanges.pop();
    if (tail && this.#isCounted(this.#exchanges.length)) this.#windowTokens -= tokensOf(tail);
    const rebuildFrom = tail ? tail.firstMessage : 0;
    if (!tail) {
      this.#preambleMessages = 0;
      this.#preambleTokens = this.#preambleCount.tokens;
    }
    this.#messages = kept.slice(0, rebuildFrom);
    this.#messageCounts.length = rebuildFrom;
    if (this.#policy.name !== 'cache-aware') {
      this.#firstInWindow = Math.min(this.#firstInWindow, Math.max(this.#exchanges.length, this.#firstUnpinned));
    } else if (dropsCut) {
      // Planned afresh, as with no previous cut: every exchange held counts again.
      this.#firstInWindow = this.#firstUnpinned;
      this.#windowTokens = 0;
      for (const exchange of this.#exchanges.slice(this.#firstUnpinned)) this.#windowTokens += tokensOf(exchange);
    }
    for (const message of kept.slice(rebuildFrom)) this.#appendModelMessage(message);
  }
}
