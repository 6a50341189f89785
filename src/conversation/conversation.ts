import { summaryMessage } from '../condense/stored-summary.js';
import { DEFAULT_CONDENSE_THRESHOLD } from '../condense/condense-threshold.js';
import type { Summarizer, SummaryCost, SummaryResult } from '../condense/summarizer.js';
import { checkSummary, type SummaryFailure, type SummaryFailureReason } from '../condense/summary-failure.js';
import { startsExchange } from '../exchange/detect-exchanges.js';
import { findRewindTarget } from '../message/apply-events.js';
import type { Message, ModelMessage, ToolDefinition } from '../message/message.js';
import { parseMessages } from '../message/parse-messages.js';
import { buildRequest, providerWireFormat, type WireFormat } from '../providers/wire-format.js';
import type { HistoryStore, MessagePosition, StoredMessage } from '../store/history-store.js';
import { inputTokensFromUsage } from '../tokens/provider-usage.js';
import { storedCountCounter } from '../tokens/stored-count-counter.js';
import { type CountableRequest, countTargetKey, type TokenCount, type TokenCounter } from '../tokens/token-counter.js';
import { UsageCalibration } from '../tokens/usage-calibration.js';
import { validateBudgetTokens } from '../window/budget-tokens.js';
import { validateWindowPolicy, type WindowPolicy } from '../window/window-policy.js';
import { modelBudget, type ModelBudgetOverrides } from '../window/model-budget.js';
import { resolveModel } from '../tokens/model-catalog.js';
import { findCompressibleRun } from '../window/sequence-policy.js';
import { contextOverflowOf } from '../providers/context-overflow.js';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import { activeSummary, type StoredSummary } from './active-summary.js';
import { type AgentSettings, agentSettings, newAgentMeta } from './agent-settings.js';
import type { WindowPlan } from '../window/window-plan.js';
import { type PruneResult, WindowState } from '../window/window-state.js';
import type { ConversationEvent, ConversationListener } from './conversation-events.js';
import { loadEventSpans } from './event-spans.js';
import { preambleAfterClear } from './preamble-after-clear.js';
import { type ExchangeHistory, planHistoryView, type PlannedHistory } from './exchange-history.js';

export type { ConversationEvent, ConversationListener } from './conversation-events.js';
export type { ExchangeHistory, PlannedHistory } from './exchange-history.js';

/** Options of {@link openConversation}. */
export interface OpenConversationOptions {
  readonly store: HistoryStore;
  /** Resume this agent; a new one is created when absent. */
  readonly agentId?: string | undefined;
  readonly provider: string;
  readonly model: string;
  /** A counter for the model, e.g. from `loadTokenCounter`. */
  readonly counter: TokenCounter;
  /** Default: what the agent was created with, else 100,000. 0 disables windowing. */
  readonly budgetTokens?: number | undefined;
  /**
   * Without `budgetTokens`, derive the budget from the model: its context window less a buffer
   * (10%) and its reserved output, from the catalog with these overrides (seed 002). The condense
   * threshold is then a percentage of the model's context window.
   */
  readonly modelBudget?: ModelBudgetOverrides | true | undefined;
  readonly system?: string | undefined;
  readonly tools?: readonly ToolDefinition[] | undefined;
  readonly pinFirstExchange?: boolean | undefined;
  /** The shape of `request()`'s body; by default the provider's own (OpenAI: Chat Completions). */
  readonly format?: WireFormat | undefined;
  /** Condense what the window evicts into a pinned summary; without it, eviction is plain. */
  readonly condense?: CondenseOptions | undefined;
  /** How the window chooses what to evict (default `budget`); see {@link WindowPolicy}. */
  readonly policy?: WindowPolicy | undefined;
  /** Kept with a new agent's meta (e.g. the working directory of a chat). */
  readonly meta?: Readonly<Record<string, unknown>> | undefined;
}

/** Options of {@link Conversation.send}. */
export interface SendOptions {
  /** Retries after the provider answers that the request is too long (default 3). */
  readonly maxRetries?: number | undefined;
}

/** How a conversation condenses; see {@link Conversation.compact}. */
export interface CondenseOptions {
  readonly summarizer: Summarizer;
  /** Condense when the request reaches this percentage of the context window (default 75). */
  readonly thresholdPercent?: number | undefined;
  /** The window the percentage is of; default: the budget. */
  readonly contextWindowTokens?: number | undefined;
  /** When the threshold fires, condense until the window holds at most this share of the budget (default 0.5). */
  readonly targetShare?: number | undefined;
  /** The most of the budget the summary may take (default 0.1). */
  readonly maxSummaryShare?: number | undefined;
  /** Milliseconds before a summary is abandoned (default 60,000). */
  readonly timeoutMs?: number | undefined;
  /** Summaries tried within one turn before condensing stops (default 2). */
  readonly maxPassesPerTurn?: number | undefined;
}

/** What a condensing pass did: `compact --json` prints it. */
export interface CompactResult {
  /** The summary made (shown before anything is replaced), or null when none was. */
  readonly summary: string | null;
  readonly coveredExchanges: number;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** Null when the summary was used, else why the window fell back to eviction. */
  readonly fallback: SummaryFailureReason | null;
  /** What went wrong, in one sentence, when a fallback was taken. */
  readonly fallbackDetail: string | null;
}

/** The report `request()` gives with the body. */
export type ConversationReport = WindowPlan & {
  /** The request's count corrected by the provider's reported usage (see `UsageCalibration`). */
  readonly calibrated: TokenCount;
  /**
   * True when only the newest part of a long history was loaded: `exchanges` (and their
   * indices, and `evictedExchanges`) then cover the loaded exchanges; `history()` lists all.
   */
  readonly partial: boolean;
};

/** How many times `request()` shrinks the window when reported usage shows it runs over. */
const CALIBRATION_PASSES = 3;

/** Evicted exchanges a conversation keeps in memory before it loads its window again. */
const FORGET_EVICTED_AFTER = 256;

/**
 * The object an agent loop holds: it stores every message (before anything is sent), keeps the
 * window in step, builds the provider request within budget, and learns from reported usage.
 * Opening one reads only what the window can hold, however long the history. The cutoff is not
 * stored: it is recomputed from the budget and the history, so it is the same after a restart.
 */
export class Conversation {
  readonly agentId: string;
  readonly #options: OpenConversationOptions;
  readonly #settings: AgentSettings;
  readonly #calibration: UsageCalibration;
  #state!: WindowState;
  /** Where each message the window holds is stored, by its index in the window state. */
  #positions: (MessagePosition | undefined)[] = [];
  /** Labels of the marks a rewind can reach. */
  #marks: (string | undefined)[] = [];
  /** The agent's last seq when the window was loaded or last appended to: appends expect it, so a concurrent writer makes them fail with `STALE_WINDOW`. */
  #lastSeq = 0;
  #partial = false;
  /** Tokens kept free because reported usage ran above our count of the same request. */
  #usageMargin = 0;
  #lastRequest: CountableRequest | undefined;
  /** The summary in force, if any: the window holds it pinned after the system messages. */
  #summary: StoredSummary | undefined;
  #listeners = new Set<ConversationListener>();
  #recordSpan: (event: ConversationEvent) => void = () => undefined;
  /** Summaries tried since the last turn ended. */
  #passesThisTurn = 0;
  /** The most tokens a request may take, learned from a provider's overflow answer. */
  #overflowCeiling: number | undefined;

  private constructor(agentId: string, options: OpenConversationOptions, settings: AgentSettings) {
    this.agentId = agentId;
    this.#options = options;
    this.#settings = settings;
    this.#calibration = new UsageCalibration({ counter: options.counter });
  }

  get #target() {
    return { provider: this.#options.provider, model: this.#options.model };
  }

  /** Opens (or creates) an agent's conversation and loads its window. */
  static async open(given: OpenConversationOptions): Promise<Conversation> {
    const derived = given.modelBudget && given.budgetTokens === undefined
      ? modelBudget(resolveModel(given.provider, given.model), given.modelBudget === true ? {} : given.modelBudget)
      : undefined;
    const condense = given.condense && derived ? { contextWindowTokens: derived.contextWindowTokens, ...given.condense } : given.condense;
    // Everything given is checked before a new agent is created: a refused open stores nothing.
    const policy = given.policy === undefined ? undefined : validateWindowPolicy(given.policy, 'policy');
    const options = { ...given, policy, ...(derived ? { budgetTokens: derived.allowedTokens, condense } : {}) };
    const target = { provider: options.provider, model: options.model };
    let agentId = options.agentId;
    if (agentId === undefined) {
      const preamble = options.counter.countPreamble({ ...target, system: options.system, tools: options.tools });
      const meta = { ...options.meta, ...newAgentMeta(target, options, preamble) };
      agentSettings(meta, options);
      agentId = await options.store.createAgent(meta);
    }
    const conversation = new Conversation(agentId, options, agentSettings(await options.store.agentMeta(agentId), options));
    conversation.#recordSpan = await loadEventSpans();
    await conversation.#load();
    return conversation;
  }

  /**
   * Loads the window from the store: the newest exchanges whose stored counts reach the budget,
   * and more if none of them turns out to be evicted, so that the cutoff is the one the whole
   * history gives.
   */
  async #load(): Promise<void> {
    const budget = this.#settings.budgetTokens;
    const key = countTargetKey(this.#target);
    let summary = await activeSummary(this.#options.store, this.agentId);
    for (let minTokens = this.#readsWholeHistory ? Number.POSITIVE_INFINITY : budget + 1; ; minTokens *= 2) {
      const read = await this.#options.store.windowTail(this.agentId, { minTokens, withFirstExchange: this.#settings.pinFirstExchange, after: summary?.last });
      if (summary && !read.tail.some((entry) => startsExchange(entry.message))) {
        // A summary never stands for the latest exchange (a rewind can leave it covering that):
        // then it is set aside until an exchange follows it.
        summary = undefined;
        minTokens /= 2;
        continue;
      }
      // The summary goes after the leading system messages, before any pinned first exchange.
      const leading = read.head.findIndex((entry) => entry.message.role !== 'system');
      const split = leading === -1 ? read.head.length : leading;
      const loaded: (StoredMessage | undefined)[] = [...read.head.slice(0, split), ...(summary ? [undefined] : []), ...read.head.slice(split), ...read.tail];
      const messages = loaded.map((entry) => entry?.message ?? summaryMessage(summary?.data.text ?? ''));
      const known = new Map<ModelMessage, TokenCount>();
      for (const entry of loaded) if (entry?.count?.target === key) known.set(entry.message as ModelMessage, entry.count);
      const state = this.#newState(storedCountCounter({ messages: known, fallback: this.#options.counter }));
      state.append(messages);
      if (read.complete || state.prune().evicted.length > 0) {
        this.#state = state;
        this.#summary = summary;
        this.#positions = loaded.map((entry) => entry && { agentId: entry.agentId, seq: entry.seq });
        this.#marks = [...read.marks];
        this.#lastSeq = read.lastSeq;
        this.#partial = !read.complete;
        return;
      }
    }
  }

  get #policy(): WindowPolicy {
    return this.#options.policy ?? { name: 'budget' };
  }

  /** Without a budget, or with a policy that chooses over every exchange, the window needs the whole visible history. */
  get #readsWholeHistory(): boolean {
    return this.#settings.budgetTokens === 0 || this.#policy.name === 'fraction' || this.#policy.name === 'sequence';
  }

  /**
   * The budget less the margin reported usage asks for (0 stays 0: windowing disabled), and
   * never above what a provider's overflow answer showed fits.
   */
  get #workingBudget(): number {
    const budget = this.#settings.budgetTokens;
    const working = budget === 0 ? 0 : Math.max(1, budget - this.#usageMargin);
    if (this.#overflowCeiling === undefined) return working;
    return working === 0 ? this.#overflowCeiling : Math.min(working, this.#overflowCeiling);
  }

  #newState(counter: TokenCounter): WindowState {
    return new WindowState({
      ...this.#target,
      counter,
      system: this.#settings.system,
      tools: this.#settings.tools,
      budgetTokens: this.#workingBudget,
      pinFirstExchange: this.#settings.pinFirstExchange,
      policy: this.#policy,
      storedAs: (index) => {
        const position = this.#positions[index];
        if (!position) return 'the summary';
        return position.agentId === this.agentId ? `message ${position.seq}` : `message ${position.seq} of agent ${position.agentId}`;
      },
    });
  }

  /**
   * Stores messages (user input, assistant output, tool results, events) and adds them to the
   * window. A message that would break the conversation, or a rewind to no reachable mark, is
   * refused before it is stored. A batch is stored in one transaction, except that each rewind
   * in it ends a transaction, since what follows a rewind is checked against the rewound window.
   * When another writer appended to the agent since this window was loaded, nothing is stored,
   * the window is loaded again and the append fails with `STALE_WINDOW`.
   */
  async append(messages: readonly Message[]): Promise<void> {
    let run: Message[] = [];
    for (const message of parseMessages(messages)) {
      run.push(message);
      if (message.role === 'event' && message.kind === 'rewind') {
        await this.#appendRun(run);
        run = [];
      }
    }
    if (run.length > 0) await this.#appendRun(run);
  }

  async #appendRun(run: readonly Message[]): Promise<void> {
    const marks = [...this.#marks];
    const counts: (TokenCount | null)[] = [];
    let rewound = false;
    try {
      // The window checks the messages as it takes them; the store writes them only if it did.
      for (const [index, message] of run.entries()) {
        counts.push(message.role === 'event' ? null : this.#options.counter.countMessage({ ...this.#target, message }));
        if (message.role !== 'event') this.#state.append([message]);
        else if (message.kind === 'clear') {
          this.#state.append([message]);
          marks.length = 0;
        } else if (message.kind === 'mark') marks.push(message.label);
        else if (message.kind === 'rewind') {
          marks.length = findRewindTarget(marks.map((label) => ({ label, position: 0 })), message.label, `messages[${index}]`) + 1;
          rewound = true;
        }
      }
      const { firstSeq, lastSeq } = await this.#options.store.append(this.agentId, run, { counts, countTarget: this.#target, expectedLastSeq: this.#lastSeq });
      this.#lastSeq = lastSeq;
      this.#marks = marks;
      if (rewound) {
        await this.#load();
        return;
      }
      for (const [index, message] of run.entries()) {
        if (message.role === 'event' && message.kind === 'clear') this.#positions = [];
        else if (message.role !== 'event') this.#positions.push({ agentId: this.agentId, seq: firstSeq + index });
      }
    } catch (error) {
      // Either failed: the store holds the truth, so the window is loaded from it again.
      await this.#load();
      throw error;
    }
  }

  /**
   * The request to send now, within budget, and its report. Everything appended since the last
   * usage report counts: in a long tool loop, each call is checked before it is made. When the
   * provider's reported usage shows our count of a request ran low, the window keeps that many
   * tokens free, so that the request as the provider counts it stays within budget.
   */
  async request(): Promise<{ request: unknown; report: ConversationReport }> {
    // Content appended since the turn ended counts: the threshold is checked again.
    await this.#condenseIfDue(await this.#prune());
    let plan = this.#state.plan();
    let calibrated = this.#calibrated(plan);
    for (let pass = 0; pass < CALIBRATION_PASSES && this.#settings.budgetTokens > 0 && calibrated.tokens > this.#settings.budgetTokens; pass++) {
      const margin = this.#usageMargin + calibrated.tokens - this.#settings.budgetTokens;
      if (margin === this.#usageMargin) break;
      this.#usageMargin = margin;
      this.#state.setBudgetTokens(this.#workingBudget);
      await this.#prune('usage');
      plan = this.#state.plan();
      calibrated = this.#calibrated(plan);
    }
    if (plan.overBudget && plan.clearedToolOutputs.length === 0 && this.#overflowCeiling !== undefined) {
      // A provider refused a request this long: old tool outputs go even when the policy keeps them.
      plan = this.#state.plan({ clearToolOutputs: { name: 'clear-tool-outputs' } });
      calibrated = this.#calibrated(plan);
    }
    if (plan.clearedToolOutputs.length > 0) {
      this.#emit({ type: 'tool-outputs-cleared', outputs: plan.clearedToolOutputs, tokensBefore: plan.totalTokens + plan.clearedTokens, tokensAfter: plan.totalTokens });
    }
    const format = this.#options.format ?? providerWireFormat(this.#options.provider);
    const request = buildRequest(format, { model: this.#options.model, system: this.#settings.system, tools: this.#settings.tools, messages: plan.messages });
    return { request, report: { ...plan, calibrated, partial: this.#partial } };
  }

  /**
   * Builds the request and hands it to `call` (which sends it to the provider). When the provider
   * answers that the request is too long, the window is cut to what the answer shows fits (old
   * tool outputs of an exchange too long on its own are cleared) and the request is sent again,
   * up to `maxRetries` times; then it fails with `CONTEXT_OVERFLOW`, naming the tokens and the
   * limit. Any other error is thrown as it is.
   */
  async send<T>(call: (request: unknown, report: ConversationReport) => Promise<T>, options: SendOptions = {}): Promise<T> {
    const maxRetries = options.maxRetries ?? 3;
    for (let attempt = 0; ; attempt++) {
      const { request, report } = await this.request();
      try {
        return await call(request, report);
      } catch (error) {
        const overflow = contextOverflowOf(error);
        if (!overflow) throw error;
        const sent = report.calibrated.tokens;
        const limit = overflow.limit === undefined ? '' : ` against a limit of ${overflow.limit}`;
        const counted = overflow.tokens === undefined ? '' : ` (${overflow.tokens} as the provider counted them)`;
        const refuse = (why: string) =>
          new SlidingContextError('CONTEXT_OVERFLOW', `The provider refused the request as too long: ${sent} tokens sent${counted}${limit}; ${why}.`, { cause: error });
        if (attempt >= maxRetries) throw refuse(`gave up after ${maxRetries} ${maxRetries === 1 ? 'retry' : 'retries'}`);
        // Scale our count by the provider's, with a 2% margin; without figures, cut a fifth.
        const ratio = overflow.tokens !== undefined && overflow.limit !== undefined && overflow.tokens > 0 ? (0.98 * overflow.limit) / overflow.tokens : 0.8;
        const ceiling = Math.max(1, Math.floor(sent * Math.min(ratio, 0.98)));
        this.#overflowCeiling = Math.min(this.#overflowCeiling ?? ceiling, ceiling);
        this.#state.setBudgetTokens(this.#workingBudget);
        await this.#prune('overflow');
        const after = this.#state.plan({ clearToolOutputs: { name: 'clear-tool-outputs' } }).totalTokens;
        if (after >= sent) throw refuse('nothing more can be evicted or cleared');
        this.#emit({ type: 'overflow-retried', attempt: attempt + 1, providerTokens: overflow.tokens, limit: overflow.limit, tokensBefore: sent, tokensAfter: after });
      }
    }
  }

  #calibrated(plan: WindowPlan): TokenCount {
    const countable: CountableRequest = { system: this.#settings.system, tools: this.#settings.tools, messages: plan.messages };
    this.#lastRequest = countable;
    return this.#calibration.count({ ...this.#target, request: countable });
  }

  /**
   * Ends a turn: learns from the provider's usage, then prunes the window. When the provider
   * read more tokens than we counted for the last request, that difference is kept free from
   * then on (until a later report shows otherwise).
   */
  async endTurn(input: { readonly usage?: unknown } = {}): Promise<PruneResult> {
    const inputTokens = input.usage === undefined ? undefined : inputTokensFromUsage(input.usage);
    if (inputTokens !== undefined && this.#lastRequest) {
      const counted = this.#options.counter.count({ ...this.#target, request: this.#lastRequest }).tokens;
      this.#calibration.record({ ...this.#target, request: this.#lastRequest, inputTokens });
      this.#usageMargin = Math.max(0, inputTokens - counted);
      this.#state.setBudgetTokens(this.#workingBudget);
    }
    const result = await this.#prune();
    const condensed = await this.#condenseIfDue(result);
    this.#passesThisTurn = 0;
    // A summary reloads the window: its state is then the one to report.
    const pruned = condensed ? this.#state.prune() : result;
    await this.#forgetEvicted();
    return pruned;
  }

  /**
   * A long session evicts without end. Once the window holds more than a few hundred evicted
   * exchanges it is loaded again from the store, so that memory and the time to plan a request
   * stay in proportion to the window, not to the turns taken since the conversation opened.
   */
  async #forgetEvicted(): Promise<void> {
    if (this.#readsWholeHistory || this.#state.evictedExchanges <= FORGET_EVICTED_AFTER) return;
    await this.#load();
  }

  /**
   * Condenses when the prune just evicted (seed 000 queues each evicted exchange for a summary)
   * or the request has reached the threshold; otherwise does nothing, not even plan. True when a
   * summary replaced exchanges (and the window was reloaded).
   */
  async #condenseIfDue(pruned: PruneResult): Promise<boolean> {
    if (!this.#options.condense) return false;
    if (pruned.evicted.length === 0 && !this.#thresholdReached(this.#state.totalTokens)) return false;
    return (await this.#condense('due', false))?.fallback === null;
  }

  /** The window the condense threshold is a percentage of: the configured one, else the budget. */
  get #condenseWindow(): number {
    return this.#options.condense?.contextWindowTokens ?? this.#settings.budgetTokens;
  }

  #thresholdReached(tokens: number): boolean {
    const window = this.#condenseWindow;
    return window > 0 && (100 * tokens) / window >= (this.#options.condense?.thresholdPercent ?? DEFAULT_CONDENSE_THRESHOLD);
  }

  /**
   * Prunes the window and records what it evicted as a range of the history (a record only:
   * the messages stay, and a rewind or a larger budget brings them back).
   */
  async #prune(reason = 'budget'): Promise<PruneResult> {
    const tokensBefore = this.#state.totalTokens;
    const result = this.#state.prune();
    if (result.evicted.length > 0) {
      this.#emit({ type: 'exchange-evicted', exchanges: result.evicted.length, reason, tokensBefore, tokensAfter: result.totalTokens });
      // Loops, not Math.min(...evicted): a first prune of a long history evicts more exchanges than a call takes arguments.
      let firstEvicted = Number.POSITIVE_INFINITY;
      let lastEvicted = Number.NEGATIVE_INFINITY;
      for (const index of result.evicted) {
        firstEvicted = Math.min(firstEvicted, index);
        lastEvicted = Math.max(lastEvicted, index);
      }
      const first = this.#state.exchangeBounds(firstEvicted);
      const last = this.#state.exchangeBounds(lastEvicted);
      const from = first && this.#positions[first.firstMessage];
      const to = last && this.#positions[last.lastMessage];
      if (from && to) {
        await this.#options.store.recordRanges(this.agentId, [
          { kind: 'evicted', first: from, last: to, data: { exchanges: result.evicted.length, reason, totalTokensAfter: result.totalTokens, budgetTokens: this.#state.budgetTokens } },
        ]);
      }
    }
    return result;
  }

  /**
   * Listens to evictions, summaries, cleared tool outputs and overflow retries; returns a
   * function that stops listening. With `@opentelemetry/api` installed, each event is also a span.
   */
  on(listener: ConversationListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(event: ConversationEvent): void {
    this.#recordSpan(event);
    for (const listener of this.#listeners) listener(event);
  }

  /**
   * Condenses now: every exchange but the pinned ones and the latest is folded into the summary.
   * With `dryRun` the summary is made and shown but nothing is recorded and the window stays.
   */
  async compact(options: { readonly dryRun?: boolean } = {}): Promise<CompactResult> {
    const result = await this.#condense('all', options.dryRun === true);
    if (result) return result;
    const tokens = this.#state.plan().totalTokens;
    return { summary: null, coveredExchanges: 0, tokensBefore: tokens, tokensAfter: tokens, fallback: null, fallbackDetail: null };
  }

  /**
   * One condensing pass. `due`: the exchanges the window evicted since the last summary, and,
   * when the request has reached the threshold, the oldest in the window until it is down to the
   * target share. `all`: everything but the pinned exchange and the latest. The summary replaces
   * them only if it passes {@link checkSummary}; otherwise they stay plainly evicted (or in the
   * window) and `summary-failed` says why. The history is never touched.
   */
  async #condense(select: 'due' | 'all', dryRun: boolean): Promise<CompactResult | undefined> {
    const options = this.#options.condense;
    const plan = this.#state.plan();
    const tokensBefore = plan.totalTokens;
    const budget = this.#settings.budgetTokens;
    const contextWindow = this.#condenseWindow;
    const last = plan.exchanges.length - 1;
    const chosen = plan.exchanges.filter((exchange) => !exchange.pinned && !exchange.inWindow && exchange.index < last);
    const policy = this.#policy;
    if (select === 'due' && policy.name === 'sequence' && chosen.length > 0) {
      // A threshold fired: the whole run outside the retention window is condensed (seed 003).
      const kept = plan.exchanges.filter((exchange) => exchange.inWindow && !exchange.pinned);
      const run = findCompressibleRun(kept, (plan.exchanges.at(-1)?.lastMessage ?? -1) + 1, policy.retentionWindow);
      if (run) for (const exchange of plan.exchanges.slice(run.firstExchange, run.lastExchange + 1)) chosen.push(exchange);
    }
    if (select === 'all' || this.#thresholdReached(tokensBefore)) {
      const target = select === 'all' ? 0 : (options?.targetShare ?? 0.5) * contextWindow;
      let tokens = tokensBefore - chosen.filter((exchange) => exchange.inWindow).reduce((sum, exchange) => sum + exchange.tokens, 0);
      for (const exchange of plan.exchanges) {
        if (exchange.pinned || !exchange.inWindow || exchange.index === last || chosen.includes(exchange)) continue;
        if (tokens <= target) break;
        chosen.push(exchange);
        tokens -= exchange.tokens;
      }
    }
    if (chosen.length === 0) return undefined;
    const fail = (failure: SummaryFailure, cost: SummaryCost = { inputTokens: 0, outputTokens: 0 }): CompactResult => {
      this.#emit({ type: 'summary-failed', summarizer: options?.summarizer.name ?? 'none', ...failure, tokensBefore, tokensAfter: tokensBefore, cost });
      return { summary: null, coveredExchanges: 0, tokensBefore, tokensAfter: tokensBefore, fallback: failure.reason, fallbackDetail: failure.detail };
    };
    if (!options) return fail({ reason: 'no-summarizer', detail: 'no summarizer is configured' });
    if (!dryRun && this.#passesThisTurn >= (options.maxPassesPerTurn ?? 2)) return fail({ reason: 'cap', detail: 'condensing reached its cap for this turn' });
    if (!dryRun) this.#passesThisTurn++;

    const countTokens = (text: string) => this.#options.counter.countMessage({ ...this.#target, message: summaryMessage(text) }).tokens;
    const previousTokens = this.#summary ? countTokens(this.#summary.data.text) : 0;
    const replaced = previousTokens + chosen.reduce((sum, exchange) => sum + exchange.tokens, 0);
    let result: SummaryResult;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeoutMs = options.timeoutMs ?? 60_000;
    const timedOut = new SlidingContextError('TIMEOUT', `the summarizer took longer than ${timeoutMs} ms`);
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          // Settle the race first: a summarizer that stops on the abort rejects at once.
          reject(timedOut);
          controller.abort(timedOut);
        }, timeoutMs);
      });
      result = await Promise.race([
        options.summarizer.summarize({
          exchanges: chosen.map((exchange) => this.#state.exchangeMessages(exchange.index)),
          previousSummary: this.#summary?.data.text,
          maxTokens: Math.max(1, Math.floor((options.maxSummaryShare ?? 0.1) * (budget || contextWindow || 100_000))),
          countTokens,
          signal: controller.signal,
        }),
        timeout,
      ]);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      return fail({ reason: error === timedOut ? 'timeout' : 'error', detail });
    } finally {
      clearTimeout(timer);
    }
    const summaryTokens = countTokens(result.text);
    const failure = checkSummary(result, { summary: summaryTokens, replaced });
    if (failure) return fail(failure, result.cost);

    const coveredExchanges = (this.#summary?.data.coveredExchanges ?? 0) + chosen.length;
    const leaving = chosen.filter((exchange) => exchange.inWindow).reduce((sum, exchange) => sum + exchange.tokens, 0);
    const tokensAfter = tokensBefore - leaving - previousTokens + summaryTokens;
    if (!dryRun) {
      const first = this.#positions[this.#state.exchangeBounds(chosen[0]?.index ?? 0)?.firstMessage ?? -1];
      const end = this.#positions[this.#state.exchangeBounds(chosen.at(-1)?.index ?? 0)?.lastMessage ?? -1];
      if (first && end) {
        const { name: summarizer } = options.summarizer;
        // With the summary's own count, so that the history view plans it without a tokenizer.
        const count = { tokens: summaryTokens, countTarget: countTargetKey(this.#target) };
        const data = { text: result.text, summarizer, cost: result.cost, coveredExchanges, tokensBefore, tokensAfter, ...count };
        await this.#options.store.recordRanges(this.agentId, [{ kind: 'summary', first, last: end, data }]);
        await this.#load();
        this.#emit({ type: 'summary-created', summarizer, coveredExchanges, tokensBefore, tokensAfter: this.#state.totalTokens, cost: result.cost });
      }
    }
    const after = dryRun ? tokensAfter : this.#state.totalTokens;
    return { summary: result.text, coveredExchanges, tokensBefore, tokensAfter: after, fallback: null, fallbackDetail: null };
  }

  /** Changes the budget (kept with the agent for this conversation only) and reloads the window. */
  async setBudgetTokens(budgetTokens: number): Promise<void> {
    this.#settings.budgetTokens = validateBudgetTokens(budgetTokens);
    await this.#load();
  }

  /** Forks a sub-agent that inherits this agent's settings and sees its history so far. */
  async fork(): Promise<Conversation> {
    const child = await this.#options.store.fork(this.agentId, {
      budgetTokens: this.#settings.budgetTokens,
      pinFirstExchange: this.#settings.pinFirstExchange,
      ...(this.#settings.system === undefined ? {} : { system: this.#settings.system }),
    });
    return Conversation.open({ ...this.#options, agentId: child, budgetTokens: this.#settings.budgetTokens });
  }

  /**
   * Clears the window: the model sees nothing from before but the system messages the history
   * starts with, which are stored again after the clear; the history keeps it all.
   */
  async clear(): Promise<void> {
    const { messages } = await preambleAfterClear(this.#options.store, this.agentId);
    await this.append([{ role: 'event', kind: 'clear' }, ...messages]);
  }

  /** The labels of the marks a rewind can reach now, oldest first. */
  get marks(): readonly string[] {
    return this.#marks.filter((label): label is string => label !== undefined);
  }

  /** The settings in force: the budget, the system prompt and tools, the pin. */
  get settings(): Readonly<AgentSettings> {
    return this.#settings;
  }

  /** Sets a mark that `rewind` can return to. */
  mark(label: string): Promise<void> {
    return this.append([{ role: 'event', kind: 'mark', label }]);
  }

  /** Returns to a mark: what came after it leaves the window (and stays in the history). */
  rewind(label: string): Promise<void> {
    return this.append([{ role: 'event', kind: 'rewind', label }]);
  }

  /** Every exchange of the history with its title, tools, tokens, age and place in or out of the window. */
  async history(): Promise<ExchangeHistory[]> {
    return (await this.historyView()).exchanges;
  }

  /** The `/history` view: the plan over the whole history, every exchange, and the summary in force. */
  historyView(): Promise<PlannedHistory> {
    return planHistoryView({
      policy: this.#policy,
      ...this.#target,
      preambleCount: this.#options.counter.countPreamble({ ...this.#target, system: this.#settings.system, tools: this.#settings.tools }),
      store: this.#options.store,
      agentId: this.agentId,
      budgetTokens: this.#settings.budgetTokens,
      system: this.#settings.system,
      tools: this.#settings.tools,
      pinFirstExchange: this.#settings.pinFirstExchange,
      loadCounter: () => Promise.resolve(this.#options.counter),
    });
  }
}

/** Opens (or creates) an agent's conversation; see {@link Conversation}. */
export function openConversation(options: OpenConversationOptions): Promise<Conversation> {
  return Conversation.open(options);
}
