import { describeLoss } from '../../condense/loss-report.js';
import type { ExchangeHistory } from '../../conversation/conversation.js';
import type { TurnCacheUsage } from '../../conversation/prompt-cache.js';
import type { SummaryView } from '../../views/summary-view.js';
import { type PinLine, renderPins } from './pins-list.js';
import type { WindowPlan } from '../../window/window-plan.js';
import { renderContextRule } from './context-rule.js';
import { formatAge } from './format-age.js';
import { cachedShareText, cacheTotalLine } from './cache-usage-text.js';
import { clipText } from './format-exchange.js';
import { formatCount } from './format-count.js';
import { formatMessageRange } from './format-message-range.js';
import { formatNumber } from './format-number.js';
import { neutralizeControlCharacters } from './neutralize-control-characters.js';
import { overBudgetNote } from './over-budget-note.js';
import { cutText, stablePrefixText } from './cut-text.js';
import { agentExchangeNumbering } from './agent-window-json.js';

/** The summary block under the rule: its header, its first lines, and its loss report. */
export function renderSummary(summary: SummaryView): string[] {
  const { exchanges } = summary;
  const range = exchanges ? (exchanges.first === exchanges.last ? `exchange #${exchanges.first}` : `exchanges #${exchanges.first}–#${exchanges.last}`) : 'earlier exchanges';
  const usd = summary.cost.usd ? `, $${summary.cost.usd.toFixed(4)}` : '';
  const cost = `${formatNumber(summary.cost.inputTokens)} in / ${formatNumber(summary.cost.outputTokens)} out tokens${usd}`;
  const size = summary.tokens === null ? '' : ` · ${formatCount(summary.tokens, 'token')}`;
  return [
    `Summary (${summary.summarizer}) of ${range}, messages ${formatMessageRange(summary.messages.first, summary.messages.last)}${size} · cost ${cost}:`,
    ...summary.text.split('\n').slice(0, 12).map((line) => `  ${clipText(line, 110)}`),
    ...(summary.text.split('\n').length > 12 ? [`  … (${formatCount(summary.text.split('\n').length - 12, 'more line')}; history --json has it all)`] : []),
    ...(summary.dropped ? [`  Loss report: ${describeLoss(summary.dropped)}`] : []),
    '',
  ];
}

/**
 * The `/history` view: exchanges outside the window, the `── context ──` rule, the exchanges
 * inside, each with its title, tools, tokens and age.
 */
export function renderHistoryReport(
  agentId: string,
  plan: WindowPlan,
  exchanges: readonly ExchangeHistory[],
  now: Date,
  summary?: SummaryView,
  cache?: TurnCacheUsage,
  pins: readonly PinLine[] = [],
): string {
  const budget = plan.budgetTokens === 0 ? 'windowing disabled' : `budget ${formatCount(plan.budgetTokens, 'token')}`;
  const lines = [`sliding-context history ${agentId} · ${plan.provider}/${plan.model} · ${budget}`, ''];
  const row = (exchange: ExchangeHistory) =>
    [
      `#${exchange.index}`.padStart(5),
      `"${clipText(exchange.title, 44)}"`.padEnd(47),
      clipText(exchange.tools.join(', '), 28).padEnd(28),
      formatCount(exchange.tokens, 'token').padStart(14),
      exchange.pinned ? 'pinned' : formatAge(exchange.createdAt, now),
      ...(exchange.summarized ? ['summarized'] : []),
      ...(exchange.cache ? [cachedShareText(exchange.cache)] : []),
    ].join('  ');
  const outside = exchanges.filter((exchange) => !exchange.inWindow);
  const inside = exchanges.filter((exchange) => exchange.inWindow);
  // One push per row: a long history has more exchanges than a call takes arguments.
  if (outside.length > 0) {
    lines.push('Outside the window (kept in the history):');
    for (const exchange of outside) lines.push(row(exchange));
    lines.push('');
  }
  // The summary is sent: it sits after the rule, pinned before the exchanges in the window.
  const numberOf = agentExchangeNumbering(exchanges);
  lines.push(renderContextRule(100), `Cut ${cutText(plan, plan.cut, numberOf)}`, '');
  if (summary) for (const line of renderSummary(summary)) lines.push(line);
  for (const exchange of inside) lines.push(row(exchange));
  if (exchanges.length === 0) lines.push('(no exchanges yet)');
  lines.push(
    '',
    `Window ${formatNumber(plan.totalTokens)}${plan.budgetTokens > 0 ? ` / ${formatNumber(plan.budgetTokens)}` : ''} tokens · ${formatCount(inside.length, 'exchange')} in, ${formatNumber(outside.length)} out · ${plan.method}${plan.exact ? ' (exact)' : ''}`,
  );
  lines.push(`Prefix ${stablePrefixText(plan.cut, numberOf)}`);
  for (const line of renderPins(pins, plan)) lines.push(line);
  if (cache) lines.push(cacheTotalLine(cache));
  if (plan.overBudget) lines.push(overBudgetNote(plan));
  // Titles, tool names and the summary are stored text: none may reach the terminal as a command.
  return `${neutralizeControlCharacters(lines.join('\n'))}\n`;
}
