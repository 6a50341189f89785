import type { ModelMessage } from '../../message/message.js';
import type { WindowPlan } from '../../window/window-plan.js';
import { DEFAULT_WINDOW_POLICY } from '../../window/window-policy.js';
import { renderContextRule } from './context-rule.js';
import { describeExchange } from '../../exchange/describe-exchange.js';
import { clipText, formatToolUse } from './format-exchange.js';
import { formatCount } from './format-count.js';
import { formatNumber } from './format-number.js';
import { neutralizeControlCharacters } from './neutralize-control-characters.js';
import { overBudgetNote } from './over-budget-note.js';
import { cutText, stablePrefixText } from './cut-text.js';
import { type PinLine, plannedPinLines, renderPins } from './pins-list.js';

const TITLE_WIDTH = 44;
const TOOLS_WIDTH = 46;

function pad(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  return align === 'left' ? text.padEnd(width) : text.padStart(width);
}

/** One exchange as the window report shows it. */
export interface WindowReportRow {
  /** The exchange's number: its index in the plan, or in the whole history of an agent. */
  readonly index: number;
  readonly title: string;
  /** How often each tool was called, by name. */
  readonly toolCalls: Readonly<Record<string, number>>;
  readonly tokens: number;
  readonly state: 'pinned' | 'in' | 'out' | 'summarized';
  /** True for the exchange the `── context ──` rule is drawn above. */
  readonly startsWindow: boolean;
}

/** The report's rows for a plan over `messages`, the conversation its indices point into. */
export function windowReportRows(plan: WindowPlan, messages: readonly ModelMessage[]): WindowReportRow[] {
  return plan.exchanges.map((exchange) => {
    const description = describeExchange(messages, exchange.firstMessage, exchange.lastMessage);
    return {
      index: exchange.index,
      title: description.title,
      toolCalls: Object.fromEntries(description.tools),
      tokens: exchange.tokens,
      state: exchange.pinned ? 'pinned' : exchange.inWindow ? 'in' : 'out',
      startsWindow: exchange.firstMessage === plan.cutoffMessage && !exchange.pinned,
    };
  });
}

/** What the report says of the summary in force, when there is one. */
export interface WindowReportSummary {
  readonly summarizer: string;
  readonly tokens: number | null;
}

/**
 * The human report of a plan: one row per exchange, the `── context ──` rule where the window
 * begins, and the totals. `rows` are {@link windowReportRows}, or an agent's whole history.
 */
export function renderWindowReport(
  plan: WindowPlan,
  rows: readonly WindowReportRow[],
  options: {
    readonly format?: string | undefined;
    readonly summary?: WindowReportSummary | undefined;
    /** Name the message the stable prefix ends at (a file's view, whose message indices the reader knows). */
    readonly messageIndices?: boolean | undefined;
    /** The pins as named for the reader (default: by message index). */
    readonly pins?: readonly PinLine[] | undefined;
  } = {},
): string {
  // Loops, not Math.max(...widths): a long history has more exchanges than a call takes arguments.
  let indexWidth = 1;
  let tokensWidth = 6;
  for (const row of rows) {
    indexWidth = Math.max(indexWidth, String(row.index).length);
    tokensWidth = Math.max(tokensWidth, formatNumber(row.tokens).length);
  }
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
      : `budget ${formatCount(plan.budgetTokens, 'token')}`;
  const source = options.format ? `${options.format} input · ` : '';
  lines.push(`sliding-context window · ${source}${plan.provider}/${plan.model} · ${budget}`, '', header);

  for (const row of rows) {
    if (row.startsWindow) lines.push('', renderContextRule(header.length), '');
    lines.push(
      [
        pad(String(row.index), indexWidth, 'right'),
        pad(`"${clipText(row.title, TITLE_WIDTH - 2)}"`, TITLE_WIDTH),
        pad(clipText(formatToolUse(new Map(Object.entries(row.toolCalls))), TOOLS_WIDTH), TOOLS_WIDTH),
        pad(formatNumber(row.tokens), tokensWidth, 'right'),
        row.state,
      ]
        .join('  ')
        .trimEnd(),
    );
  }
  if (rows.length === 0) lines.push('(no exchanges yet)');

  const inWindow = rows.filter((row) => row.state === 'in' || row.state === 'pinned').length;
  const summarized = rows.filter((row) => row.state === 'summarized').length;
  const evicted = rows.length - inWindow;
  // The plan's exchanges are the rows not summarized, in order: the cut is told in the rows' numbers.
  const planned: number[] = [];
  for (const row of rows) if (row.state !== 'summarized') planned.push(row.index);
  const numberOf = (index: number) => planned[index] ?? index;
  // The summary is pinned as a system message: it is one of the plan's leading ones.
  // Pins a summary covers are hoisted as leading system messages too.
  const hoistedLeading = plan.pins.filter((pin) => pin.exchange === null && pin.placement === 'hoisted').length;
  const hoisted = plan.pins.filter((pin) => pin.placement === 'hoisted').length;
  const leading = plan.preambleMessages - (options.summary ? 1 : 0) - hoistedLeading;
  const pinnedParts = ['framing', 'system prompt', 'tools'];
  if (leading > 0) pinnedParts.push(formatCount(leading, 'leading system message'));
  if (options.summary) pinnedParts.push(`the ${options.summary.summarizer} summary${options.summary.tokens === null ? '' : ` (${formatCount(options.summary.tokens, 'token')})`}`);
  if (hoisted > 0) pinnedParts.push(formatCount(hoisted, 'hoisted pin'));
  const exactTokenizer = /^(o200k_base|cl100k_base)$/.test(plan.method);
  const counting = plan.exact
    ? `${plan.method} (exact)`
    : exactTokenizer
      ? `${plan.method} (exact tokenizer; tool-call framing and some media estimated)`
      : `${plan.method} (an estimate, not exact)`;
  lines.push(
    '',
    `Pinned     ${formatCount(plan.pinnedTokens, 'token')} (${pinnedParts.join(', ')})`,
    `Window     ${formatCount(plan.totalTokens, 'token')} in all${plan.budgetTokens > 0 ? ` (budget ${formatNumber(plan.budgetTokens)})` : ''}: ${formatNumber(inWindow)} of ${formatCount(rows.length, 'exchange')}, ${formatNumber(evicted)} evicted${summarized > 0 ? ` (${formatNumber(summarized)} summarized)` : ''}`,
    `Cut        ${cutText(plan, plan.cut, numberOf)}`,
    `Prefix     ${stablePrefixText(plan.cut, numberOf, options.messageIndices === true)}`,
    `Counting   ${counting}`,
  );
  for (const line of renderPins(options.pins ?? plannedPinLines(plan.pins), plan)) lines.push(line);
  if (plan.policy !== DEFAULT_WINDOW_POLICY.name) lines.push(`Policy     ${plan.policy}`);
  if (plan.clearedToolOutputs.length > 0) {
    const cleared = plan.clearedToolOutputs;
    lines.push(
      `Cleared    ${formatCount(cleared.length, 'old tool output')} of the latest exchange (${formatCount(plan.clearedTokens, 'token')}; calls and ids kept): ${cleared.map((output) => `${output.toolName} ${output.toolCallId}`).join(', ')}`,
    );
  }
  if (plan.syntheticResults.length > 0) {
    // The plan answers them in the request only, always: not the pairing repair of `--repair`.
    lines.push(
      `Synthetic  ${formatCount(plan.syntheticResults.length, 'unanswered tool call')} answered in the request with a synthetic "aborted" result (the input is unchanged)`,
    );
  }
  if (plan.overBudget) lines.push(overBudgetNote(plan));
  // Titles and tool names come from the conversation: none may reach the terminal as a command.
  return `${neutralizeControlCharacters(lines.join('\n'))}\n`;
}
