import type { WindowCut } from '../../window/window-cut-report.js';
import type { WindowPlan } from '../../window/window-plan.js';
import { formatCount } from './format-count.js';
import { formatNumber } from './format-number.js';

/** How a view numbers the plan's exchanges: by plan index, or over an agent's whole history. */
export type ExchangeNumbering = (planIndex: number) => number;

const byPlanIndex: ExchangeNumbering = (index) => index;

/**
 * Where the request's stable prefix ends: the head the previous request sent too, which the
 * provider's prompt cache can serve. `messages` adds the plan's message index (a file's view).
 */
export function stablePrefixText(cut: WindowCut, numberOf: ExchangeNumbering = byPlanIndex, messages = false): string {
  const end = cut.stablePrefixEnd;
  const tokens = formatCount(end.tokens, 'token');
  if (end.message === null) return `stable through the system prompt and tools only (${tokens}): the rest of the request is new to the cache`;
  const message = messages ? `, message ${formatNumber(end.message)}` : '';
  const where = end.exchange === null ? `the leading system messages${message}` : `exchange #${numberOf(end.exchange)}${message}`;
  return `stable through ${where} (${tokens}): the head the previous request sent too, served from the prompt cache`;
}

/**
 * Why the cut is where it is, with the numbers: kept while the request fits, moved once when it
 * would pass the budget, and down to what.
 */
export function cutText(plan: Pick<WindowPlan, 'budgetTokens' | 'totalTokens' | 'policy'>, cut: WindowCut, numberOf: ExchangeNumbering = byPlanIndex): string {
  const budget = formatNumber(plan.budgetTokens);
  const at = cut.exchange === null ? 'nothing after the pinned part' : `exchange #${numberOf(cut.exchange)}`;
  const from = cut.previousExchange === null ? 'the start' : `exchange #${numberOf(cut.previousExchange)}`;
  // `from exchange #12 to #19`: the second number needs no noun of its own.
  const to = cut.previousExchange !== null && cut.exchange !== null ? `#${numberOf(cut.exchange)}` : at;
  const total = formatNumber(plan.totalTokens);
  const onlyLatest =
    cut.exchange === null ? `only the pinned part is sent, and it is kept though over budget` : `only the latest exchange is left, and it is kept though over budget`;
  // A moving cut stops at the latest exchange, so it may end over the low-water mark (or the budget: `onlyLatest`).
  const down =
    cut.lowWaterTokens === null
      ? `down to ${total} <= budget ${budget}`
      : plan.totalTokens <= cut.lowWaterTokens
        ? `down to ${total} <= low-water mark ${formatNumber(cut.lowWaterTokens)}`
        : `could not get down to the low-water mark ${formatNumber(cut.lowWaterTokens)}: only the latest exchange is left (${total} > ${formatNumber(cut.lowWaterTokens)}), and it is always kept`;
  const after = plan.totalTokens > plan.budgetTokens ? onlyLatest : down;
  switch (cut.reason) {
    case 'windowing-disabled':
      return `at ${at}: windowing is disabled (budget 0), every exchange is sent`;
    case 'fits':
      return `kept at ${at}: the request fits (${total} <= budget ${budget})`;
    case 'over-budget': {
      const passes = `the request would pass the budget ${budget} (${formatNumber(cut.tokensAtPreviousCut)})`;
      if (!cut.moved) return `kept at ${at}: ${passes}, but ${onlyLatest}`;
      return `moved from ${from} to ${to}: ${passes}; ${after}`;
    }
    case 'policy':
      return `moved from ${from} to ${to} by the ${plan.policy} policy (the request fit: ${formatNumber(cut.tokensAtPreviousCut)} <= budget ${budget})`;
    case 'first-plan':
    case 'previous-cut-dropped': {
      const why = cut.reason === 'first-plan' ? 'no previous cut' : 'a rewind or clear went back past the previous cut, so it was dropped';
      // Nothing evicted: the request is every exchange, over budget only when just the latest is there.
      if (!cut.moved && plan.totalTokens > plan.budgetTokens) return `at ${at} (${why}): the request is over budget (${total} > budget ${budget}), but ${onlyLatest}`;
      if (!cut.moved) return `at ${at} (${why}): the request fits (${total} <= budget ${budget})`;
      if (cut.tokensAtPreviousCut <= plan.budgetTokens) return `at ${at} (${why}), chosen by the ${plan.policy} policy (every exchange would fit: ${formatNumber(cut.tokensAtPreviousCut)} <= budget ${budget})`;
      const passes = `every exchange would pass the budget ${budget} (${formatNumber(cut.tokensAtPreviousCut)})`;
      return `at ${at} (${why}): ${passes}; ${after}`;
    }
  }
}
