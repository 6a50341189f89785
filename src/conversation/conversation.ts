import { uncompactSummary } from './uncompact-summary.js';
import type { Message, ToolCallPart, ToolResultPart } from '../message/message.js';
import { parseMessages } from '../message/parse-messages.js';
import { sameJsonValue } from '../message/same-json-value.js';
import { WireBodyBuilder } from './wire-body-builder.js';
import type { ContextRangeInput, MessagePosition } from './conversation-store.js';
import type { TokenCount } from '../tokens/token-counter.js';
import { runsEndingAtRewinds } from './take-run.js';
import { WindowPruner } from './window-pruner.js';
import { WorkingBudget } from './working-budget.js';
import { validateBudgetTokensOption } from '../window/budget-tokens.js';
import { DEFAULT_WINDOW_POLICY, type WindowPolicy } from '../window/window-policy.js';
import { contextOverflowOf } from '../providers/context-overflow.js';
import { type AgentSettings, agentSettings } from './agent-settings.js';
import { agentToOpen, followSentPreamble, resolveOpenOptions } from './resolve-open-options.js';
import type { WindowPlan } from '../window/window-plan.js';
import type { PruneResult, WindowState } from '../window/window-state.js';
import type { ConversationEvent, ConversationListener } from './conversation-events.js';
import { isRecallTool, recallToolResult, withRecallTools } from './recall-tools.js';
import { loadEventSpans } from './event-spans.js';
import { preambleAfterClear } from './preamble-after-clear.js';
import { type CondenseHost, Condenser } from './condenser.js';
import { ceilingAfterOverflow, overflowRefusal } from './overflow-retry.js';
import { type ExchangeHistory, planHistoryView, type PlannedHistory } from './exchange-history.js';
import { cacheUsageRange, PromptCacheTracker, recordTurnCacheUsage } from './prompt-cache.js';
import { pinEventsFor } from '../window/pinned-message.js';
import { ConversationWindow } from './conversation-window.js';
import { windowCondenseHost } from './window-condense-host.js';

export type { ConversationEvent, ConversationListener } from './conversation-events.js';
export type { ExchangeHistory, PlannedHistory } from './exchange-history.js';
export type { RecallOptions } from './recall-tools.js';
export type { AppendMessagesOptions, CompactOptions, CompactResult, CondenseOptions, ConversationReport, OpenConversationOptions, RequestOptions, SendOptions, UncompactedSummary, UncompactResult } from './conversation-options.js';
import type { AppendMessagesOptions, CompactOptions, CompactResult, ConversationReport, OpenConversationOptions, RequestOptions, SendOptions, UncompactResult } from './conversation-options.js';
import { throughMessageIndex } from './compact-through.js';

/** How many times `request()` shrinks the window when reported usage shows it runs over. */
const CALIBRATION_PASSES = 3;

/**
 * The object an agent loop holds: it stores every message (before anything is sent), keeps the
 * window in step, builds the provider request within budget, and learns from reported usage.
 * Opening one reads only what the window can hold, however long the history. The cutoff is the
 * same after a restart: recomputed from the budget and the history, or, for the `cache-aware`
 * policy, read back from the evicted ranges recorded when it moved (see {@link keptCutPosition}).
 */
export class Conversation {
  readonly agentId: string;
  readonly #options: OpenConversationOptions;
  readonly #settings: AgentSettings;
  readonly #budget: WorkingBudget;
  readonly #condenser: Condenser;
  readonly #cache: PromptCacheTracker;
  /** The window as loaded from the store, with where its messages are stored. */
  readonly #window: ConversationWindow;
  #listeners = new Set<ConversationListener>();
  #recordSpan: (event: ConversationEvent) => void = () => undefined;
  /** The usage an append ended the turn with (its figures stored with it), until `endTurn`. */
  #turnEndedWith: { readonly usage: unknown } | undefined;
  readonly #pruner: WindowPruner;
  /** What the condenser reads from this conversation and records through it. */
  readonly #condenseHost: CondenseHost;
  readonly #bodies: WireBodyBuilder;

  private constructor(agentId: string, options: OpenConversationOptions, settings: AgentSettings) {
    this.agentId = agentId;
    this.#options = options;
    this.#settings = settings;
    const target = { provider: options.provider, model: options.model };
    this.#budget = new WorkingBudget(options.counter, target);
    this.#cache = new PromptCacheTracker(agentId);
    const { store, counter } = options;
    const policy = options.policy ?? DEFAULT_WINDOW_POLICY;
    this.#condenser = new Condenser({ condense: options.condense, policy, counter, target, budgetTokens: () => this.#settings.budgetTokens });
    this.#window = new ConversationWindow({ store, agentId, counter, target, policy, settings, workingBudget: () => this.#workingBudget });
    this.#pruner = new WindowPruner({ window: this.#window, store, agentId, emit: this.#emit });
    this.#condenseHost = windowCondenseHost(this.#window, () => this.writeEvictionRecords(), this.#emit);
    this.#bodies = new WireBodyBuilder(options);
  }

  /** The window state now (a load replaces it). */
  get #state(): WindowState {
    return this.#window.state;
  }

  get #target() {
    return { provider: this.#options.provider, model: this.#options.model };
  }

  /** Opens (or creates) an agent's conversation and loads its window. */
  static async open(given: OpenConversationOptions): Promise<Conversation> {
    // Everything given is checked before a new agent is created: a refused open stores nothing.
    const options = resolveOpenOptions(given);
    const agentId = await agentToOpen(options);
    const meta = await options.store.agentMeta(agentId);
    if (options.preambleAsGiven === true) await followSentPreamble(options, agentId, meta);
    const settings = agentSettings(meta, options);
    const conversation = new Conversation(agentId, options, options.recall ? { ...settings, tools: withRecallTools(settings.tools) } : settings);
    conversation.#recordSpan = await loadEventSpans();
    await conversation.#window.load();
    return conversation;
  }

  get #policy(): WindowPolicy {
    return this.#options.policy ?? DEFAULT_WINDOW_POLICY;
  }

  /**
   * The budget less the margin reported usage asks for (0 stays 0: windowing disabled), and
   * never above what a provider's overflow answer showed fits.
   */
  get #workingBudget(): number {
    return this.#budget.tokens(this.#settings.budgetTokens);
  }

  /**
   * Stores messages (user input, assistant output, tool results, events) and adds them to the
   * window. A message that would break the conversation, or a rewind to no reachable mark, is
   * refused before it is stored. A batch is stored in one transaction, except that each rewind
   * in it ends a transaction, since what follows a rewind is checked against the rewound window.
   * When another writer appended to the agent since this window was loaded, nothing is stored,
   * the window is loaded again and the append fails with `STALE_WINDOW`.
   */
  async append(messages: readonly Message[], options: AppendMessagesOptions = {}): Promise<void> {
    const parsed = parseMessages(messages);
    // Pinned: a pin event for each, stored with them (a pin that leaves no room for the latest exchange is refused).
    const runs = runsEndingAtRewinds(options.pinned === true ? [...parsed, ...pinEventsFor(parsed)] : parsed);
    const last = runs.at(-1)?.at(-1);
    // The turn's figures go with the last run when it ends with a model message, where `endTurn` would record them.
    const endsTurn = options.endsTurn !== undefined && last !== undefined && last.role !== 'event' ? options.endsTurn : undefined;
    const figures = endsTurn && this.#cache.turnFigures(endsTurn.usage);
    for (const [index, run] of runs.entries()) {
      // The run's last message lands right after the seq the append expects, or the append fails.
      const at = { agentId: this.agentId, seq: this.#window.lastSeq + run.length };
      const figured = figures && index === runs.length - 1 ? [cacheUsageRange(at, at, figures)] : [];
      const write = (ranges: readonly ContextRangeInput[]) => this.#window.appendRun(run, ranges.length > 0 ? ranges : undefined);
      // What requests evicted goes with the first run, in its transaction.
      await (index === 0 ? this.#pruner.writeWith((evicted) => write([...evicted, ...figured])) : write(figured));
    }
    if (endsTurn) {
      // The turn ends once its figures are stored: after a failed append, `endTurn` records them all.
      this.#cache.endTurn(endsTurn.usage);
      this.#turnEndedWith = { usage: endsTurn.usage };
    }
  }

  /**
   * The request to send now, within budget, and its report. Everything appended since the last
   * usage report counts: in a long tool loop, each call is checked before it is made. When the
   * provider's reported usage shows our count of a request ran low, the window keeps that many
   * tokens free, so that the request as the provider counts it stays within budget.
   * `bodyOptions` are the body's other top-level fields (`temperature`, `tool_choice`, `stream`,
   * an Anthropic `system` with its blocks, …), as `convertFrom` gives them: the body carries them.
   */
  async request(input: RequestOptions = {}): Promise<{ request: unknown; report: ConversationReport }> {
    const deferred = this.#options.deferEvictionRecords === true;
    // Content appended since the turn ended counts: the threshold is checked again.
    await this.#condenser.condenseIfDue(await this.#pruner.prune('budget', deferred), this.#condenseHost);
    let plan = this.#state.plan();
    let calibrated = this.#calibrated(plan);
    for (let pass = 0; pass < CALIBRATION_PASSES && this.#settings.budgetTokens > 0 && calibrated.tokens > this.#settings.budgetTokens; pass++) {
      if (!this.#budget.widenMargin(calibrated.tokens, this.#settings.budgetTokens)) break;
      this.#state.setBudgetTokens(this.#workingBudget);
      await this.#pruner.prune('usage', deferred);
      plan = this.#state.plan();
      calibrated = this.#calibrated(plan);
    }
    if (plan.overBudget && plan.clearedToolOutputs.length === 0 && this.#budget.refusedBefore) {
      // A provider refused a request this long: old tool outputs go even when the policy keeps them.
      plan = this.#state.plan({ clearToolOutputs: { name: 'clear-tool-outputs' } });
      calibrated = this.#calibrated(plan);
    }
    if (plan.clearedToolOutputs.length > 0) {
      this.#emit({ type: 'tool-outputs-cleared', outputs: plan.clearedToolOutputs, tokensBefore: plan.totalTokens + plan.clearedTokens, tokensAfter: plan.totalTokens });
    }
    const { system, tools } = this.#settings;
    const request = this.#bodies.build({ system, tools, messages: plan.messages, options: input.bodyOptions, cache: this.#cache.hints(plan.messages) });
    return { request, report: { ...plan, calibrated, partial: this.#window.partial } };
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
      const { request, report } = await this.request({ bodyOptions: options.bodyOptions });
      try {
        return this.#cache.noted(await call(request, report));
      } catch (error) {
        const overflow = contextOverflowOf(error);
        if (!overflow) throw error;
        const sent = report.calibrated.tokens;
        if (attempt >= maxRetries) throw overflowRefusal(error, sent, overflow, `gave up after ${maxRetries} ${maxRetries === 1 ? 'retry' : 'retries'}`);
        await this.shrinkAfterOverflow(error, sent, attempt + 1);
      }
    }
  }

  /**
   * For a loop that makes its own retries: after the provider refused a request of `sentTokens`
   * (our count) as too long, cuts the window as `send` does before its retry `attempt` (from 1).
   * False when `error` is no context overflow (nothing changes).
   * @throws SlidingContextError `CONTEXT_OVERFLOW` when nothing more can be evicted or cleared.
   */
  async shrinkAfterOverflow(error: unknown, sentTokens: number, attempt: number): Promise<boolean> {
    const overflow = contextOverflowOf(error);
    if (!overflow) return false;
    this.#budget.lowerCeiling(ceilingAfterOverflow(sentTokens, overflow));
    this.#state.setBudgetTokens(this.#workingBudget);
    await this.#pruner.prune('overflow');
    const after = this.#state.plan({ clearToolOutputs: { name: 'clear-tool-outputs' } }).totalTokens;
    if (after >= sentTokens) throw overflowRefusal(error, sentTokens, overflow, 'nothing more can be evicted or cleared');
    this.#emit({ type: 'overflow-retried', attempt, providerTokens: overflow.tokens, limit: overflow.limit, tokensBefore: sentTokens, tokensAfter: after });
    return true;
  }

  #calibrated(plan: WindowPlan): TokenCount {
    return this.#budget.count({ system: this.#settings.system, tools: this.#settings.tools, messages: plan.messages });
  }

  /**
   * Ends a turn: learns from the provider's usage, records the turn's cache figures (of every
   * request `send` made and of `usage`), then prunes the window. When the provider read more
   * tokens than we counted for the last request, that difference is kept free from then on.
   */
  async endTurn(input: { readonly usage?: unknown } = {}): Promise<PruneResult> {
    if (this.#budget.learn(input.usage)) this.#state.setBudgetTokens(this.#workingBudget);
    // An append that ended the turn with this usage (the same object or an equal copy) recorded the figures already.
    const recorded = this.#turnEndedWith !== undefined && sameJsonValue(this.#turnEndedWith.usage, input.usage);
    this.#turnEndedWith = undefined;
    if (!recorded) await recordTurnCacheUsage(this.#options.store, this.agentId, this.#window.positions.at(-1), this.#cache.endTurn(input.usage));
    const result = await this.#pruner.prune();
    await this.writeEvictionRecords();
    const condensed = await this.#condenser.condenseIfDue(result, this.#condenseHost);
    this.#condenser.endTurn();
    // A summary reloads the window: its state is then the one to report.
    const pruned = condensed ? this.#state.prune() : result;
    await this.#pruner.forgetEvicted();
    return pruned;
  }

  /** Writes the records of what requests evicted that wait for the next write (see `deferEvictionRecords`); nothing when none waits. */
  writeEvictionRecords(): Promise<void> {
    return this.#pruner.writeWaiting();
  }

  /**
   * Listens to evictions, summaries, cleared tool outputs and overflow retries; returns a
   * function that stops listening. With `@opentelemetry/api` installed, each event is also a span.
   */
  on(listener: ConversationListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  readonly #emit = (event: ConversationEvent): void => {
    this.#recordSpan(event);
    for (const listener of this.#listeners) listener(event);
  };

  /**
   * Condenses now: every exchange but the pinned ones and the latest (or, with `through`, up to
   * that exchange) is folded into the summary, guided by `focus`. With `dryRun` the summary is
   * made and shown but nothing is recorded and the window stays. A summary that would not shrink
   * the request is not used (`fallback: 'not-smaller'`).
   * @throws SlidingContextError `INVALID_OPTION` for a `through` that is no exchange before the latest
   */
  async compact(options: CompactOptions = {}): Promise<CompactResult> {
    await this.writeEvictionRecords();
    const throughMessage = options.through === undefined ? undefined : throughMessageIndex(await this.history(), this.#window.positions, options.through);
    const result = await this.#condenser.run('all', options.dryRun === true, this.#condenseHost, { throughMessage, focus: options.focus });
    if (result) return result;
    const tokens = this.#state.plan().totalTokens;
    const nothing = { fallback: null, fallbackDetail: null, fallbackTo: null, dropped: [] };
    return { summary: null, coveredExchanges: 0, tokensBefore: tokens, tokensAfter: tokens, ...nothing };
  }

  /**
   * Undoes the latest compaction: the summary in force is set aside (it stays in the history, with
   * the uncompact, as events), and the one before it, if any, is in force again.
   * @throws SlidingContextError `NO_SUMMARY` when no summary is in force
   */
  async uncompact(): Promise<UncompactResult> {
    await this.writeEvictionRecords();
    const result = await uncompactSummary(this.agentId, this.#condenseHost);
    // What came back may pass the budget: the window slides as the next request's would.
    return { ...result, tokensAfter: (await this.#pruner.prune()).totalTokens };
  }

  /**
   * Changes the budget of this open conversation and reloads the window. The agent's stored budget
   * is left as it was: open it again with `budgetTokens` to plan with this one.
   */
  async setBudgetTokens(budgetTokens: number): Promise<void> {
    this.#settings.budgetTokens = validateBudgetTokensOption(budgetTokens);
    await this.writeEvictionRecords();
    await this.#window.load();
  }

  /** Forks a sub-agent that inherits this agent's settings and sees its history so far. */
  async fork(): Promise<Conversation> {
    await this.writeEvictionRecords();
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

  /** Runs a call of `search_history` or `read_history` (see the `recall` option): the result to append; undefined for other tools. */
  async answerRecallCall(call: ToolCallPart): Promise<ToolResultPart | undefined> {
    const { recall } = this.#options;
    if (!recall || !isRecallTool(call.toolName)) return undefined;
    await this.writeEvictionRecords();
    return recallToolResult(this.#options.store, this.agentId, call, recall === true ? {} : recall);
  }

  /** The labels of the marks a rewind can reach now, oldest first. */
  get marks(): readonly string[] {
    return this.#window.marks.filter((label): label is string => label !== undefined);
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

  /**
   * Pins a stored message (a seq of this agent, or a position on its path): it is sent word for
   * word in every window, in its exchange or hoisted after the preamble, and it counts against
   * the budget. A tool call or result, or a pin that leaves no room for the latest exchange, is
   * refused (`INVALID_PIN`, `PIN_OVER_BUDGET`). False when it was pinned already.
   */
  async pin(message: number | MessagePosition): Promise<boolean> {
    await this.writeEvictionRecords();
    return this.#window.changePin('pin', message);
  }

  /** Unpins a pinned message; `INVALID_PIN` when it is not pinned. */
  async unpin(message: number | MessagePosition): Promise<void> {
    await this.writeEvictionRecords();
    await this.#window.changePin('unpin', message);
  }

  /** Every exchange of the history with its title, tools, tokens, age and place in or out of the window. */
  async history(): Promise<ExchangeHistory[]> {
    return (await this.historyView()).exchanges;
  }

  /** The `/history` view: the plan over the whole history, every exchange, and the summary in force. */
  async historyView(): Promise<PlannedHistory> {
    await this.writeEvictionRecords();
    const { counter, store } = this.#options;
    const preambleCount = counter.countPreamble({ ...this.#target, system: this.#settings.system, tools: this.#settings.tools });
    const loadCounter = () => Promise.resolve(counter);
    return planHistoryView({ ...this.#settings, ...this.#target, policy: this.#policy, preambleCount, store, agentId: this.agentId, loadCounter });
  }
}

/** Opens (or creates) an agent's conversation; see {@link Conversation}. */
export function openConversation(options: OpenConversationOptions): Promise<Conversation> {
  return Conversation.open(options);
}
