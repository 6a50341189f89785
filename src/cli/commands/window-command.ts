import { repairPairing } from '../../exchange/repair-pairing.js';
import { applyEvents } from '../../message/apply-events.js';
import { buildRequest } from '../../providers/wire-format.js';
import { resolveBudgetTokens } from '../../window/budget-tokens.js';
import { planWindow } from '../../window/plan-window.js';
import type { WindowPlan } from '../../window/window-plan.js';
import type { CliIo } from '../cli-io.js';
import { loadCliCounter } from '../load-cli-counter.js';
import { parseConversationInput, parseFormatOption, readInputText, resolveTarget } from '../read-conversation-input.js';
import { renderWindowReport } from '../render/window-report.js';

/** Flags of `sliding-context window`. */
export interface WindowCommandOptions {
  readonly budget?: string | undefined;
  readonly pinFirst?: boolean | undefined;
  readonly provider?: string | undefined;
  readonly model?: string | undefined;
  readonly format?: string | undefined;
  readonly repair?: boolean | undefined;
  readonly json?: boolean | undefined;
  readonly body?: boolean | undefined;
}

/** The `--json` report: the plan, the window's messages, and the body to send in the input's format. */
export function toWindowJson(plan: WindowPlan, format: string, request: unknown) {
  return {
    format,
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
    request,
  };
}

/** `sliding-context window [file|-]`: plans the window of a conversation and reports it. */
export async function runWindowCommand(file: string | undefined, options: WindowCommandOptions, io: CliIo): Promise<void> {
  const budgetTokens = resolveBudgetTokens({ budgetTokens: options.budget, environmentValue: io.env.SLIDING_CONTEXT_TOKENS });
  const format = parseFormatOption(options.format);
  const text = await readInputText(io, file);
  const input = parseConversationInput(text, file === undefined || file === '-' ? 'stdin' : file, format);
  let messages = applyEvents(input.messages);
  if (options.repair) {
    const repaired = repairPairing(messages);
    for (const repair of repaired.repairs) io.stderr.write(`repaired: ${repair.description}\n`);
    messages = repaired.messages;
  }
  const target = resolveTarget(input, options);
  const counter = await loadCliCounter(io, target.provider, target.model);
  const plan = planWindow({
    system: input.system,
    tools: input.tools,
    messages,
    budgetTokens,
    counter,
    ...target,
    pinFirstExchange: options.pinFirst === true,
  });
  const model = typeof input.options.model === 'string' ? input.options.model : target.model;
  const request = buildRequest(input.format, { model, system: input.system, tools: input.tools, messages: plan.messages, options: input.options });
  if (options.body) {
    io.stdout.write(`${JSON.stringify(request, null, 2)}\n`);
    if (input.detected) io.stderr.write(`format: ${input.format} (detected)\n`);
    return;
  }
  if (options.json) {
    io.stdout.write(`${JSON.stringify(toWindowJson(plan, input.format, request), null, 2)}\n`);
    return;
  }
  io.stdout.write(renderWindowReport(plan, messages, `${input.format}${input.detected ? ' (detected)' : ''}`));
}
