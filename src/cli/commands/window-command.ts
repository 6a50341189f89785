import { repairPairing } from '../../exchange/repair-pairing.js';
import { applyEvents } from '../../message/apply-events.js';
import { buildRequest, providerWireFormat } from '../../providers/wire-format.js';
import { validateWindowPolicy } from '../../window/window-policy.js';
import { resolveCliBudget } from '../resolve-cli-budget.js';
import { planWindow } from '../../window/plan-window.js';
import type { CliIo } from '../cli-io.js';
import { loadCliCounter } from '../load-cli-counter.js';
import { withCliStore } from '../open-cli-store.js';
import { parseConversationInput, parseFormatOption, readInputText, resolveTarget } from '../read-conversation-input.js';
import { toWindowJson } from '../render/window-json.js';
import { renderWindowReport } from '../render/window-report.js';
import { planAgentHistory, type StoreCommandFlags, type TargetFlags } from './store-commands.js';

/** Flags of `sliding-context window`. */
export interface WindowCommandOptions {
  readonly budget?: string | undefined;
  readonly pinFirst?: boolean | undefined;
  /** A policy name, or a policy object from the config file. */
  readonly policy?: unknown;
  readonly provider?: string | undefined;
  readonly model?: string | undefined;
  readonly format?: string | undefined;
  readonly repair?: boolean | undefined;
  readonly json?: boolean | undefined;
  readonly body?: boolean | undefined;
}

/** `sliding-context window [file|-]`: plans the window of a conversation and reports it. */
export async function runWindowCommand(file: string | undefined, options: WindowCommandOptions, io: CliIo): Promise<void> {
  const policy = options.policy === undefined ? undefined : validateWindowPolicy(options.policy, '--policy');
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
  const budgetTokens = await resolveCliBudget(io, options.budget, target);
  const counter = await loadCliCounter(io, target.provider, target.model);
  const plan = planWindow({
    system: input.system,
    tools: input.tools,
    messages,
    budgetTokens,
    counter,
    ...target,
    pinFirstExchange: options.pinFirst === true,
    policy,
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

/** `window --agent <agent>`: the window from the store, with the same report as on a file. */
export async function runAgentWindowCommand(
  agentId: string,
  flags: StoreCommandFlags & TargetFlags & { readonly body?: boolean | undefined },
  io: CliIo,
): Promise<void> {
  await withCliStore(io, flags, async (store) => {
    const { plan, messages, settings } = await planAgentHistory(io, store, agentId, flags);
    const format = providerWireFormat(plan.provider);
    const request = buildRequest(format, { model: plan.model, system: settings.system, tools: settings.tools, messages: plan.messages });
    if (flags.body) io.stdout.write(`${JSON.stringify(request, null, 2)}\n`);
    else if (flags.json) io.stdout.write(`${JSON.stringify({ agentId, ...toWindowJson(plan, format, request) }, null, 2)}\n`);
    else io.stdout.write(renderWindowReport(plan, messages));
  }, { create: false });
}
