import type { ModelMessage } from '../message/message.js';
import { collapseWhitespace } from './_collapse-whitespace.js';
import { clip } from './_fold-exchange.js';
import { type LossCandidate, LOSS_KINDS, type LossKind, lossCandidates, shownTexts, summaryLossCandidates } from './_loss-candidates.js';

export { LOSS_KINDS, type LossKind } from './_loss-candidates.js';

/** A thing that left the model's view: its kind, its text, and the exchange it was in. */
export interface LossItem {
  readonly kind: LossKind;
  readonly text: string;
  /**
   * The exchange it was in, as the caller numbers them (a conversation: the seq of the exchange's
   * first stored message); for what a replaced summary held, the number given with that summary.
   */
  readonly exchange: number;
}

/** What a loss report compares: what left the window, and what the model still sees. */
export interface LossReportInput {
  /** The exchanges that left the window (evicted, or folded into a summary), oldest first. */
  readonly evicted: readonly { readonly exchange: number; readonly messages: readonly ModelMessage[] }[];
  /** The summary a new one replaces: what it held and the new one does not is lost too. */
  readonly replacedSummary?: { readonly exchange: number; readonly text: string } | undefined;
  /** The summary the model sees from now on, if any. */
  readonly summary?: string | undefined;
  /** The messages the window still sends. */
  readonly window: readonly ModelMessage[];
}

/** A loss report lists at most this many items: the first kinds first (constraints, errors, paths…). */
export const MAX_LOSS_ITEMS = 40;

/**
 * What left the model's view: the user's constraints, the error lines, file paths, code symbols,
 * URLs and numbers that the evicted exchanges (or the summary replaced) held and that neither the
 * summary nor the window holds word for word (spaces aside). Each once, at the first exchange that held it; ordered by
 * kind (as {@link LOSS_KINDS}), then by exchange; at most `maxItems`. The same input gives the same report.
 */
export function lossReport(input: LossReportInput, maxItems = MAX_LOSS_ITEMS): LossItem[] {
  const seen = new Set<string>();
  const candidates: LossItem[] = [];
  const add = (exchange: number, found: readonly LossCandidate[]) => {
    for (const { kind, text } of found) {
      const key = `${kind}\u0000${text}`;
      if (seen.has(key)) continue;
      seen.add(key);
      candidates.push({ kind, text, exchange });
    }
  };
  // The summary replaced stands for the oldest exchanges: its things come first.
  if (input.replacedSummary) add(input.replacedSummary.exchange, summaryLossCandidates(input.replacedSummary.text));
  for (const { exchange, messages } of input.evicted) add(exchange, lossCandidates(messages));
  if (candidates.length === 0) return [];
  // The window is joined once: each candidate is then one search of it.
  const visible = collapseWhitespace([input.summary ?? '', ...input.window.flatMap(shownTexts)].join('\n'));
  const rank = (kind: LossKind) => LOSS_KINDS.indexOf(kind);
  const lost = candidates.filter((item) => !visible.includes(item.text));
  // A stable sort: within a kind, the order the exchanges held them.
  return lost.sort((a, b) => rank(a.kind) - rank(b.kind)).slice(0, Math.max(0, maxItems));
}

/** A loss report in one short line, each text clipped: `dropped 3: path src/a.ts, identifier parseArgs, number 120`. */
export function describeLoss(items: readonly LossItem[], maxCharacters = 160): string {
  if (items.length === 0) return 'nothing dropped';
  const head = `dropped ${items.length}: `;
  let line = head;
  for (const [index, item] of items.entries()) {
    const next = `${index === 0 ? '' : ', '}${item.kind} ${clip(item.text, 60)}`;
    if (line.length + next.length > maxCharacters && index > 0) return `${line}, …`;
    line += next;
  }
  return line;
}
