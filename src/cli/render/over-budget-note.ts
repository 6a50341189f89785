import type { WindowPlan } from '../../window/window-plan.js';
import { formatCount } from './format-count.js';
import { formatNumber } from './format-number.js';

/**
 * Why a plan is over budget, naming the part that does not fit: the pinned preamble (system
 * prompt, tools and pinned messages) on its own, the pinned first exchange beside it, or the
 * latest exchange. Empty when the plan is within budget.
 */
export function overBudgetNote(plan: WindowPlan): string {
  if (!plan.overBudget) return '';
  const over = `Over budget by ${formatCount(plan.overByTokens, 'token')}:`;
  const budget = formatNumber(plan.budgetTokens);
  const preamble = `the pinned preamble (system prompt, tools and pinned messages) takes ${formatCount(plan.pinnedTokens, 'token')}`;
  if (plan.pinnedTokens > plan.budgetTokens) return `${over} ${preamble}, more than the budget of ${budget} on its own; the latest exchange is kept too, since the window is never empty.`;
  const pinned = plan.exchanges.find((exchange) => exchange.pinned);
  if (pinned && plan.pinnedTokens + pinned.tokens > plan.budgetTokens) {
    return `${over} ${preamble} and the pinned first exchange ${formatNumber(pinned.tokens)}, more than the budget of ${budget}; both are kept.`;
  }
  const latest = plan.exchanges.at(-1);
  const beside = plan.pinnedTokens + (pinned && pinned !== latest ? pinned.tokens : 0);
  return `${over} the latest exchange (${formatCount(latest?.tokens ?? 0, 'token')}) does not fit beside the ${formatCount(beside, 'pinned token')}; it is kept, since the window is never empty.`;
}
