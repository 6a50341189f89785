import { SlidingContextError } from '../errors/sliding-context-error.js';
import type { Summarizer, SummaryCost, SummaryInput, SummaryResult } from '../condense/summarizer.js';
import { checkSummary, type SummaryFailure } from '../condense/summary-failure.js';
import type { PlannedExchange, WindowPlan } from '../window/window-plan.js';
import type { WindowPolicy } from '../window/window-policy.js';
import { findCompressibleRun } from '../window/sequence-policy.js';

/** What decides which exchanges a condensing pass folds into the summary. */
export interface CondenseSelection {
  /** `due`: what the window evicted, and more once the threshold is reached; `all`: everything but the pinned and the latest. */
  readonly select: 'due' | 'all';
  readonly policy: WindowPolicy;
  readonly thresholdReached: boolean;
  /** With the threshold reached, exchanges in the window are taken until it is down to this many tokens. */
  readonly targetTokens: number;
  /** Only exchanges that end at or before this message of the plan (`compact --through`). */
  readonly throughMessage?: number | undefined;
}

/**
 * The exchanges a condensing pass replaces: those evicted since the last summary (with the
 * `sequence` policy, the whole run outside its retention window) and, when the threshold is
 * reached, the oldest in the window until it is down to the target. Never a pinned exchange or
 * the latest.
 */
export function exchangesToCondense(plan: WindowPlan, selection: CondenseSelection): PlannedExchange[] {
  const last = plan.exchanges.length - 1;
  const through = selection.throughMessage ?? Number.POSITIVE_INFINITY;
  const chosen = plan.exchanges.filter((exchange) => !exchange.pinned && !exchange.inWindow && exchange.index < last && exchange.lastMessage <= through);
  const { policy } = selection;
  if (selection.select === 'due' && policy.name === 'sequence' && chosen.length > 0) {
    // A threshold fired: the whole run outside the retention window is condensed, as Forge does.
    const kept = plan.exchanges.filter((exchange) => exchange.inWindow && !exchange.pinned);
    const run = findCompressibleRun(kept, (plan.exchanges.at(-1)?.lastMessage ?? -1) + 1, policy.retentionWindow);
    if (run) for (const exchange of plan.exchanges.slice(run.firstExchange, run.lastExchange + 1)) chosen.push(exchange);
  }
  if (selection.select === 'all' || selection.thresholdReached) {
    const target = selection.select === 'all' ? 0 : selection.targetTokens;
    let tokens = plan.totalTokens - chosen.filter((exchange) => exchange.inWindow).reduce((sum, exchange) => sum + exchange.tokens, 0);
    for (const exchange of plan.exchanges) {
      if (exchange.pinned || !exchange.inWindow || exchange.index === last || exchange.lastMessage > through || chosen.includes(exchange)) continue;
      if (tokens <= target) break;
      chosen.push(exchange);
      tokens -= exchange.tokens;
    }
  }
  return chosen;
}

/**
 * Asks the summarizer, abandoning it (and aborting its signal with a `TIMEOUT` error) after
 * `timeoutMs`. A throw or a timeout is a failure with the reason, never an exception.
 */
export async function summarizeInTime(
  summarizer: Summarizer,
  input: Omit<SummaryInput, 'signal'>,
  timeoutMs: number,
): Promise<{ readonly result: SummaryResult } | { readonly failure: SummaryFailure }> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new SlidingContextError('TIMEOUT', `the summarizer took longer than ${timeoutMs} ms`);
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        // Settle the race first: a summarizer that stops on the abort rejects at once.
        reject(timedOut);
        controller.abort(timedOut);
      }, timeoutMs);
    });
    return { result: await Promise.race([summarizer.summarize({ ...input, signal: controller.signal }), timeout]) };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { failure: { reason: error === timedOut ? 'timeout' : 'error', detail } };
  } finally {
    clearTimeout(timer);
  }
}

/** What a summarizer is asked for, and what the summary must beat. */
export interface SummaryRequest extends Omit<SummaryInput, 'signal'> {
  readonly timeoutMs: number;
  /** Tokens of what the summary replaces (the previous summary included): it must take fewer. */
  readonly replacedTokens: number;
}

/** A summary that passed {@link checkSummary}, with its count; or why there is none. */
export async function checkedSummary(
  summarizer: Summarizer,
  request: SummaryRequest,
): Promise<{ readonly result: SummaryResult; readonly summaryTokens: number } | { readonly failure: SummaryFailure; readonly cost?: SummaryCost }> {
  const { timeoutMs, replacedTokens, ...input } = request;
  const answered = await summarizeInTime(summarizer, input, timeoutMs);
  if ('failure' in answered) return answered;
  const { result } = answered;
  const summaryTokens = input.countTokens(result.text);
  const failure = checkSummary(result, { summary: summaryTokens, replaced: replacedTokens });
  return failure ? { failure, cost: result.cost } : { result, summaryTokens };
}
