import type { SummaryResult } from './summarizer.js';

/** Why a summary was not used; the window falls back to plain eviction and the history stays. */
export type SummaryFailureReason = 'error' | 'timeout' | 'empty' | 'truncated' | 'not-smaller' | 'cap' | 'no-summarizer' | 'lost-pin';

/** A failure with its reason and one sentence of detail. */
export interface SummaryFailure {
  readonly reason: SummaryFailureReason;
  readonly detail: string;
}

/**
 * Checks a summary before it replaces anything: it must have text, must not have been cut off by
 * its output cap or stopped by the provider's content filter, and must make the request smaller than the summary and exchanges it replaces.
 */
export function checkSummary(result: SummaryResult, tokens: { readonly summary: number; readonly replaced: number }): SummaryFailure | undefined {
  if (result.finishReason === 'content-filter') return { reason: 'truncated', detail: 'the provider\'s content filter stopped the summary short' };
  if (result.text.trim() === '') return { reason: 'empty', detail: 'the summarizer returned no text' };
  if (result.finishReason === 'length') return { reason: 'truncated', detail: 'the summary was cut off by its output cap' };
  if (tokens.summary >= tokens.replaced) {
    return { reason: 'not-smaller', detail: `the summary (${tokens.summary} tokens) is not smaller than what it replaces (${tokens.replaced} tokens)` };
  }
  return undefined;
}
