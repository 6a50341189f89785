import type { ExchangeHistory } from '../../conversation/conversation.js';
import type { WindowPlan } from '../../window/window-plan.js';
import { renderContextRule } from './context-rule.js';
import { formatAge } from './format-age.js';
import { clipText } from './format-exchange.js';
import { formatNumber } from './format-number.js';

/**
 * The `/history` view: exchanges outside the window, the `── context ──` rule, the exchanges
 * inside, each with its title, tools, tokens and age.
 */
export function renderHistoryReport(agentId: string, plan: WindowPlan, exchanges: readonly ExchangeHistory[], now: Date): string {
  const budget = plan.budgetTokens === 0 ? 'windowing disabled' : `budget ${formatNumber(plan.budgetTokens)} tokens`;
  const lines = [`sliding-context history ${agentId} · ${plan.provider}/${plan.model} · ${budget}`, ''];
  const row = (exchange: ExchangeHistory) =>
    [
      `#${exchange.index}`.padStart(5),
      `"${clipText(exchange.title, 44)}"`.padEnd(47),
      clipText(exchange.tools.join(', '), 28).padEnd(28),
      `${formatNumber(exchange.tokens)} tokens`.padStart(14),
      exchange.pinned ? 'pinned' : formatAge(exchange.createdAt, now),
    ].join('  ');
  const outside = exchanges.filter((exchange) => !exchange.inWindow);
  const inside = exchanges.filter((exchange) => exchange.inWindow);
  if (outside.length > 0) lines.push('Outside the window (kept in the history):', ...outside.map(row), '');
  lines.push(renderContextRule(100), '', ...inside.map(row));
  if (exchanges.length === 0) lines.push('(no exchanges yet)');
  lines.push(
    '',
    `Window ${formatNumber(plan.totalTokens)}${plan.budgetTokens > 0 ? ` / ${formatNumber(plan.budgetTokens)}` : ''} tokens · ${inside.length} exchanges in, ${outside.length} out · ${plan.method}${plan.exact ? ' (exact)' : ''}`,
  );
  if (plan.overBudget) lines.push(`Over budget by ${formatNumber(plan.overByTokens)} tokens: the latest exchange does not fit on its own; it is kept.`);
  return `${lines.join('\n')}\n`;
}
