import { DEFAULT_CONDENSE_THRESHOLD } from '../condense/condense-threshold.js';
import { type SummaryData, summaryMessage } from '../condense/stored-summary.js';
import { showsText } from '../window/pinned-message.js';
import type { StoredSummary } from './active-summary.js';
import type { SummaryCost } from '../condense/summarizer.js';
import type { SummaryFailure } from '../condense/summary-failure.js';
import type { ContextRangeInput, MessagePosition } from './conversation-store.js';
import { countTargetKey, type TokenCounter } from '../tokens/token-counter.js';
import type { WindowPolicy } from '../window/window-policy.js';
import type { PruneResult, WindowState } from '../window/window-state.js';
import { checkedSummary, exchangesToCondense } from './condense-pass.js';
import { rangeLossReport, windowAfterSummary } from './range-loss-report.js';
import type { ConversationEvent } from './conversation-events.js';
import type { CompactResult, CondenseOptions, PinCheck } from './conversation-options.js';

/** What a condensing pass reads from, and records through, its conversation. */
export interface CondenseHost {
  /** The window state now (recording a summary loads a new one). */
  state(): WindowState;
  /** The summary in force, if any. */
  summary(): StoredSummary | undefined;
  /** Where the message at an index of the state is stored. */
  positionOf(messageIndex: number): MessagePosition | undefined;
  /** Records a range (a summary, an uncompact) and loads the window again. */
  recordRange(range: ContextRangeInput): Promise<void>;
  /** The pinned messages in force: where each is stored, and its text. */
  pins(): readonly { readonly agentId: string; readonly seq: number; readonly text: string }[];
  /** The window as it would be loaded were the summary recorded: what the model would see. */
  previewSummary(first: MessagePosition, last: MessagePosition, data: SummaryData): Promise<WindowState>;
  emit(event: ConversationEvent): void;
}

/** What one pass is asked for beyond its selection (`compact --through`, `--focus`). */
export interface PassOptions {
  /** Only exchanges that end at or before this message of the window state. */
  readonly throughMessage?: number | undefined;
  /** What this summary should keep above all; wins over the condense options' own. */
  readonly focus?: string | undefined;
}

/** The settings a {@link Condenser} works with. */
export interface CondenserOptions {
  /** Without it, nothing is condensed and each pass says `no-summarizer`. */
  readonly condense: CondenseOptions | undefined;
  readonly policy: WindowPolicy;
  readonly counter: TokenCounter;
  readonly target: { readonly provider: string; readonly model: string };
  /** The configured budget, read at each pass (it can change). */
  readonly budgetTokens: () => number;
}

/**
 * A conversation's condensing: when a pass is due, which exchanges it folds in, the summarizer
 * call with its checks, and the summary recorded over the history (never in place of it).
 */
export class Condenser {
  readonly #options: CondenserOptions;
  /** Summaries tried since the last turn ended. */
  #passesThisTurn = 0;

  constructor(options: CondenserOptions) {
    this.#options = options;
  }

  /** A turn ended: the cap on passes per turn starts again. */
  endTurn(): void {
    this.#passesThisTurn = 0;
  }

  /**
   * Condenses when the prune just evicted (each evicted exchange is queued for the summary) or
   * the request has reached the threshold; otherwise does nothing, not even plan. True when a
   * summary replaced exchanges (and the window was reloaded).
   */
  async condenseIfDue(pruned: PruneResult, host: CondenseHost): Promise<boolean> {
    if (!this.#options.condense) return false;
    if (pruned.evicted.length === 0 && !this.#thresholdReached(host.state().totalTokens)) return false;
    return (await this.run('due', false, host))?.fallback === null;
  }

  /** The window the condense threshold is a percentage of: the configured one, else the budget. */
  get #contextWindow(): number {
    return this.#options.condense?.contextWindowTokens ?? this.#options.budgetTokens();
  }

  #thresholdReached(tokens: number): boolean {
    const window = this.#contextWindow;
    return window > 0 && (100 * tokens) / window >= (this.#options.condense?.thresholdPercent ?? DEFAULT_CONDENSE_THRESHOLD);
  }

  /**
   * One condensing pass. `due`: the exchanges the window evicted since the last summary, and,
   * when the request has reached the threshold, the oldest in the window until it is down to the
   * target share. `all`: everything but the pinned exchange and the latest. The summary replaces
   * them only if it passes `checkSummary`; otherwise they stay plainly evicted (or in the
   * window) and `summary-failed` says why. The history is never touched. The summary's loss
   * report (what leaves the model's view with it) is recorded with it, and returned as `dropped`.
   */
  async run(select: 'due' | 'all', dryRun: boolean, host: CondenseHost, pass: PassOptions = {}): Promise<CompactResult | undefined> {
    const { condense: options, counter, target } = this.#options;
    const plan = host.state().plan();
    const tokensBefore = plan.totalTokens;
    const contextWindow = this.#contextWindow;
    const chosen = exchangesToCondense(plan, {
      select,
      policy: this.#options.policy,
      thresholdReached: select === 'due' && this.#thresholdReached(tokensBefore),
      targetTokens: (options?.targetShare ?? 0.5) * contextWindow,
      throughMessage: pass.throughMessage,
    });
    if (chosen.length === 0) return undefined;
    const fail = (failure: SummaryFailure, cost: SummaryCost = { inputTokens: 0, outputTokens: 0 }, pins?: readonly PinCheck[]): CompactResult => {
      host.emit({ type: 'summary-failed', summarizer: options?.summarizer.name ?? 'none', ...failure, fallbackTo: 'eviction', tokensBefore, tokensAfter: tokensBefore, cost });
      const unchanged = { summary: null, coveredExchanges: 0, tokensBefore, tokensAfter: tokensBefore, dropped: [] };
      return { ...unchanged, fallback: failure.reason, fallbackDetail: failure.detail, fallbackTo: 'eviction', ...(pins ? { pins } : {}) };
    };
    if (!options) return fail({ reason: 'no-summarizer', detail: 'no summarizer is configured' });
    if (!dryRun && this.#passesThisTurn >= (options.maxPassesPerTurn ?? 2)) return fail({ reason: 'cap', detail: 'condensing reached its cap for this turn' });
    if (!dryRun) this.#passesThisTurn++;

    const countSummary = (text: string) => counter.countMessage({ ...target, message: summaryMessage(text) });
    const countTokens = (text: string) => countSummary(text).tokens;
    const previous = host.summary();
    const previousTokens = previous ? countTokens(previous.data.text) : 0;
    const budget = this.#options.budgetTokens();
    const made = await checkedSummary(options.summarizer, {
      exchanges: chosen.map((exchange) => host.state().exchangeMessages(exchange.index)),
      previousSummary: previous?.data.text,
      maxTokens: Math.max(1, Math.floor((options.maxSummaryShare ?? 0.1) * (budget || contextWindow || 100_000))),
      countTokens,
      timeoutMs: options.timeoutMs ?? 60_000,
      replacedTokens: previousTokens + chosen.reduce((sum, exchange) => sum + exchange.tokens, 0),
      focus: pass.focus ?? options.focus,
    });
    if ('failure' in made) return fail(made.failure, made.cost);
    const { result, summaryTokens } = made;

    const coveredExchanges = (previous?.data.coveredExchanges ?? 0) + chosen.length;
    const leaving = chosen.filter((exchange) => exchange.inWindow).reduce((sum, exchange) => sum + exchange.tokens, 0);
    const tokensAfter = tokensBefore - leaving - previousTokens + summaryTokens;
    // A pass that takes exchanges out of the request (and any compact) is there to shrink it.
    if ((select === 'all' || leaving > 0) && tokensAfter >= tokensBefore) {
      return fail({ reason: 'not-smaller', detail: `the request would not shrink: ${tokensBefore} tokens before, ${tokensAfter} with the summary` }, result.cost);
    }
    const covered = new Set(chosen.map((exchange) => exchange.index));
    const window = windowAfterSummary(host.state(), plan, covered);
    const replacedSummary = previous && { exchange: previous.first.seq, text: previous.data.text };
    const dropped = rangeLossReport(host.state(), (index) => host.positionOf(index), [...covered], { summary: result.text, window, replacedSummary });
    const first = host.positionOf(host.state().exchangeBounds(chosen[0]?.index ?? 0)?.firstMessage ?? -1);
    const last = host.positionOf(host.state().exchangeBounds(chosen.at(-1)?.index ?? 0)?.lastMessage ?? -1);
    const { name: summarizer } = options.summarizer;
    // With the summary's own count and how it was made, so that the history view plans it
    // without a tokenizer and calls it exact only when it was.
    const { exact: countExact, method: countMethod } = countSummary(result.text);
    const count = { tokens: summaryTokens, countTarget: countTargetKey(target), countExact, countMethod };
    const data = { text: result.text, summarizer, cost: result.cost, coveredExchanges, tokensBefore, tokensAfter, ...count, dropped };
    const pins = first && last ? await checkPins(host, first, last, data) : undefined;
    const lost = pins?.filter((pin) => !pin.present) ?? [];
    if (lost.length > 0) {
      const named = lost.map((pin) => `seq ${pin.seq}`).join(', ');
      return fail({ reason: 'lost-pin', detail: `with the summary the model would not see the pinned text of ${named} word for word` }, result.cost, pins);
    }
    if (!dryRun && first && last) {
      await host.recordRange({ kind: 'summary', first, last, data });
      host.emit({ type: 'summary-created', summarizer, coveredExchanges, tokensBefore, tokensAfter: host.state().totalTokens, cost: result.cost });
    }
    const after = dryRun ? tokensAfter : host.state().totalTokens;
    const used = { fallback: null, fallbackDetail: null, fallbackTo: null, dropped, ...(pins ? { pins } : {}) };
    return { summary: result.text, coveredExchanges, tokensBefore, tokensAfter: after, ...used };
  }
}

/**
 * Checks, before a summary is recorded, that each pinned text is present word for word in the
 * window the model would see with it (loaded as it would be); undefined when nothing is pinned.
 */
async function checkPins(host: CondenseHost, first: MessagePosition, last: MessagePosition, data: SummaryData): Promise<PinCheck[] | undefined> {
  const pins = host.pins();
  if (pins.length === 0) return undefined;
  const seen = (await host.previewSummary(first, last, data)).windowMessages();
  return pins.map((pin) => ({ agentId: pin.agentId, seq: pin.seq, present: showsText(seen, pin.text) }));
}
