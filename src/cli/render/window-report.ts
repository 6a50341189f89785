import type { ModelMessage } from '../../message/message.js';
import type { WindowPlan } from '../../window/window-plan.js';
import { renderContextRule } from './context-rule.js';
import { describeExchange } from '../../exchange/describe-exchange.js';
import { clipText, formatToolUse } from './format-exchange.js';
import { formatNumber } from './format-number.js';
import { neutralizeControlCharacters } from './neutralize-control-characters.js';

const TITLE_WIDTH = 44;
const TOOLS_WIDTH = 46;

function pad(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  return align === 'left' ? text.padEnd(width) : text.padStart(width);
}

/**
 * The human report of a plan: one row per exchange, the `── context ──` rule where the window
 * begins, and the totals. `messages` is the conversation the plan's indices point into.
 */
export function renderWindowReport(plan: WindowPlan, messages: readonly ModelMessage[], format?: string): string {
  const indexWidth = Math.max(1, String(plan.exchanges.length - 1).length);
  // A loop, not Math.max(...widths): a long history has more exchanges than a call takes arguments.
  let tokensWidth = 6;
  for (const exchange of plan.exchanges) tokensWidth = Math.max(tokensWidth, formatNumber(exchange.tokens).length);
  const header = [
    pad('#', indexWidth, 'right'),
    pad('request', TITLE_WIDTH),
    pad('tools', TOOLS_WIDTH),
    pad('tokens', tokensWidth, 'right'),
    'window',
  ].join('  ');
  const lines: string[] = [];
  const budget =
    plan.budgetTokens === 0
      ? 'windowing disabled'
      : `budget ${formatNumber(plan.budgetTokens)} tokens`;
  const source = format ? `${format} input · ` : '';
  lines.push(`sliding-context window · ${source}${plan.provider}/${plan.model} · ${budget}`, '', header);

  const cutoffExchange = plan.exchanges.find(
    (exchange) => exchange.firstMessage === plan.cutoffMessage && !exchange.pinned,
  );
  for (const exchange of plan.exchanges) {
    if (exchange === cutoffExchange) lines.push('', renderContextRule(header.length), '');
    const description = describeExchange(messages, exchange.firstMessage, exchange.lastMessage);
    const state = exchange.pinned ? 'pinned' : exchange.inWindow ? 'in' : 'out';
    lines.push(
      [
        pad(String(exchange.index), indexWidth, 'right'),
        pad(`"${clipText(description.title, TITLE_WIDTH - 2)}"`, TITLE_WIDTH),
        pad(clipText(formatToolUse(description.tools), TOOLS_WIDTH), TOOLS_WIDTH),
        pad(formatNumber(exchange.tokens), tokensWidth, 'right'),
        state,
      ]
        .join('  ')
        .trimEnd(),
    );
  }
  if (plan.exchanges.length === 0) lines.push('(no exchanges yet)');

  const inWindow = plan.exchanges.filter((exchange) => exchange.inWindow).length;
  const pinnedParts = ['framing', 'system prompt', 'tools'];
  if (plan.preambleMessages > 0) {
    pinnedParts.push(
      `${plan.preambleMessages} leading system message${plan.preambleMessages > 1 ? 's' : ''}`,
    );
  }
  const exactTokenizer = /^(o200k_base|cl100k_base)$/.test(plan.method);
  const counting = plan.exact
    ? `${plan.method} (exact)`
    : exactTokenizer
      ? `${plan.method} (exact tokenizer; tool-call framing and some media estimated)`
      : `${plan.method} (an estimate, not exact)`;
  lines.push(
    '',
    `Pinned     ${formatNumber(plan.pinnedTokens)} tokens (${pinnedParts.join(', ')})`,
    `Window     ${formatNumber(plan.totalTokens)} tokens in all${plan.budgetTokens > 0 ? ` (budget ${formatNumber(plan.budgetTokens)})` : ''}: ${inWindow} of ${plan.exchanges.length} exchanges, ${plan.evictedExchanges} evicted`,
    `Counting   ${counting}`,
  );
  if (plan.policy !== 'budget') lines.push(`Policy     ${plan.policy}`);
  if (plan.clearedToolOutputs.length > 0) {
    const cleared = plan.clearedToolOutputs;
    lines.push(
      `Cleared    ${cleared.length} old tool output${cleared.length > 1 ? 's' : ''} of the latest exchange (${formatNumber(plan.clearedTokens)} tokens; calls and ids kept): ${cleared.map((output) => `${output.toolName} ${output.toolCallId}`).join(', ')}`,
    );
  }
  if (plan.syntheticResults.length > 0) {
    lines.push(
      `Repaired   ${plan.syntheticResults.length} unanswered tool call${plan.syntheticResults.length > 1 ? 's' : ''} answered with a synthetic "aborted" result`,
    );
  }
  if (plan.overBudget) {
    lines.push(
      `Over budget by ${formatNumber(plan.overByTokens)} tokens: the latest exchange does not fit on its own; it is kept, since the window is never empty.`,
    );
  }
  // Titles and tool names come from the conversation: none may reach the terminal as a command.
  return `${neutralizeControlCharacters(lines.join('\n'))}\n`;
}
