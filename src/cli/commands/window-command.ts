import { applyEvents } from '../../message/apply-events.js';
import { resolveBudgetTokens } from '../../window/budget-tokens.js';
import { planWindow } from '../../window/plan-window.js';
import type { WindowPlan } from '../../window/window-plan.js';
import type { CliIo } from '../cli-io.js';
import { loadCliCounter } from '../load-cli-counter.js';
import { parseConversationInput, readInputText } from '../read-conversation-input.js';
import { renderWindowReport } from '../render/window-report.js';

/** Flags of `sliding-context window`. */
export interface WindowCommandOptions {
  readonly budget?: string | undefined;
  readonly pinFirst?: boolean | undefined;
  readonly provider: string;
  readonly model: string;
  readonly json?: boolean | undefined;
}

/** The `--json` report: the plan with the window's messages, ready to send. */
export function toWindowJson(plan: WindowPlan) {
  return {
    provider: plan.provider,
    model: plan.model,
    budgetTokens: plan.budgetTokens,
    totalTokens: plan.totalTokens,
    pinnedTokens: plan.pinnedTokens,
    overBudget: plan.overBudget,
    overByTokens: plan.overByTokens,
    exact: plan.exact,
    method: plan.method,
    preambleMessages: plan.preambleMessages,
    evictedExchanges: plan.evictedExchanges,
    cutoffMessage: plan.cutoffMessage,
    exchanges: plan.exchanges,
    syntheticResults: plan.syntheticResults,
    messages: plan.messages,
  };
}

/** `sliding-context window [file|-]`: plans the window of a conversation and reports it. */
export async function runWindowCommand(
  file: string | undefined,
  options: WindowCommandOptions,
  io: CliIo,
): Promise<void> {
  const budgetTokens = resolveBudgetTokens({
    budgetTokens: options.budget,
    environmentValue: io.env.SLIDING_CONTEXT_TOKENS,
  });
  const text = await readInputText(io, file);
  const input = parseConversationInput(text, file === undefined || file === '-' ? 'stdin' : file);
  const messages = applyEvents(input.messages);
  const counter = await loadCliCounter(io, options.provider, options.model);
  const plan = planWindow({
    system: input.system,
    tools: input.tools,
    messages,
    budgetTokens,
    counter,
    provider: options.provider,
    model: options.model,
    pinFirstExchange: options.pinFirst === true,
  });
  io.stdout.write(
    options.json
      ? `${JSON.stringify(toWindowJson(plan), null, 2)}\n`
      : renderWindowReport(plan, messages),
  );
}
