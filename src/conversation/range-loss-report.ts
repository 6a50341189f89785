import { type LossItem, lossReport, type LossReportInput } from '../condense/loss-report.js';
import { isSummaryMessage } from '../condense/stored-summary.js';
import type { ModelMessage } from '../message/message.js';
import type { WindowPlan } from '../window/window-plan.js';
import type { WindowState } from '../window/window-state.js';
import type { MessagePosition } from './conversation-store.js';

/**
 * The loss report of exchanges of a window state that leave the model's view (evicted, or folded
 * into `summary`), against what it still sees. Each item names its exchange by the seq of the
 * exchange's first stored message (`firstSeq` in `history --json`).
 */
export function rangeLossReport(
  state: WindowState,
  positionOf: (messageIndex: number) => MessagePosition | undefined,
  leaving: readonly number[],
  seen: { readonly summary: string | undefined; readonly window: readonly ModelMessage[]; readonly replacedSummary?: LossReportInput['replacedSummary'] },
): LossItem[] {
  return lossReportLater(state, positionOf, leaving, seen)();
}

/**
 * {@link rangeLossReport} with its input taken now (the exchanges leaving, the window) and the
 * report made when the function returned is called: the state may have moved on by then.
 */
export function lossReportLater(
  state: WindowState,
  positionOf: (messageIndex: number) => MessagePosition | undefined,
  leaving: readonly number[],
  seen: { readonly summary: string | undefined; readonly window: readonly ModelMessage[]; readonly replacedSummary?: LossReportInput['replacedSummary'] },
): () => LossItem[] {
  const evicted = leaving.map((index) => ({
    exchange: positionOf(state.exchangeBounds(index)?.firstMessage ?? -1)?.seq ?? -1,
    messages: state.exchangeMessages(index),
  }));
  // The summary in the window is the old one: the report compares with the summary given.
  const window = seen.window.filter((message) => !isSummaryMessage(message));
  return () => lossReport({ evicted, summary: seen.summary, window, replacedSummary: seen.replacedSummary });
}

/** The messages a summary leaves in the window: the leading system messages, and the exchanges in it that it does not cover. */
export function windowAfterSummary(state: WindowState, plan: WindowPlan, covered: ReadonlySet<number>): ModelMessage[] {
  const messages = plan.messages.slice(0, plan.preambleMessages);
  for (const exchange of plan.exchanges) {
    if ((!exchange.inWindow && !exchange.pinned) || covered.has(exchange.index)) continue;
    // One push per message: an exchange may hold more messages than a call takes arguments.
    for (const message of state.exchangeMessages(exchange.index)) messages.push(message);
  }
  return messages;
}
