import type { WindowCommandOptions } from './window-command-line.js';
import { isSlidingContextError, SlidingContextError } from '../../errors/sliding-context-error.js';
import { repairPairing } from '../../exchange/repair-pairing.js';
import { requireValidConversation } from '../../exchange/require-valid-conversation.js';
import { applyEvents } from '../../message/apply-events.js';
import { isRecord } from '../../message/is-record.js';
import type { ModelMessage } from '../../message/message.js';
import { buildRequest } from '../../providers/wire-format.js';
import { agentWireFormat } from '../../views/agent-wire-format.js';
import { validateWindowPolicy } from '../../window/window-policy.js';
import { resolveCliBudget } from '../resolve-cli-budget.js';
import { planWindow } from '../../window/plan-window.js';
import type { HistoryStore } from '../../store/history-store.js';
import type { CliIo } from '../cli-io.js';
import { loadCliCounter } from '../load-cli-counter.js';
import { withCliStore } from '../open-cli-store.js';
import { describeInput, inputJson, readConversationInput, resolveTarget } from '../read-conversation-input.js';
import { toWindowJson } from '../../views/window-json.js';
import { agentWindowRows } from '../render/agent-window-json.js';
import { agentWindowJson } from '../../views/agent-window-json.js';
import { storedPinLines } from '../render/pins-list.js';
import { renderWindowReport, windowReportRows } from '../render/window-report.js';
import { planAgentHistory, type StoreCommandFlags, type TargetFlags } from './store-commands.js';

/** `sliding-context window [file|-]`: plans the window of a conversation and reports it. */
export async function runWindowCommand(file: string | undefined, options: WindowCommandOptions, io: CliIo): Promise<void> {
  const policy = options.policy === undefined ? undefined : validateWindowPolicy(options.policy, '--policy');
  const input = await readConversationInput(io, file, options.format);
  let messages = applyEvents(input.messages);
  if (options.repair) {
    const repaired = repairPairing(messages);
    requireRepaired(repaired.messages);
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
    if (input.detected) io.stderr.write(`format: ${describeInput(input)}\n`);
    return;
  }
  if (options.json) {
    io.stdout.write(`${JSON.stringify(toWindowJson(plan, inputJson(input), request), null, 2)}\n`);
    return;
  }
  io.stdout.write(renderWindowReport(plan, windowReportRows(plan, messages), { format: describeInput(input), messageIndices: true }));
}

/** Flags of `window --agent`. */
export type AgentWindowFlags = StoreCommandFlags & TargetFlags & { readonly body?: boolean | undefined };

/**
 * An agent's window from an open store, and the body to send: in the format the agent was
 * imported in (else its provider's own), with the request options it came with.
 */
export async function planAgentWindow(store: HistoryStore, agentId: string, flags: TargetFlags, io: CliIo) {
  const planned = await planAgentHistory(io, store, agentId, flags);
  const { plan, settings, meta } = planned;
  const format = agentWireFormat(meta, plan.provider);
  const options = format === meta.format && isRecord(meta.requestOptions) ? meta.requestOptions : {};
  const model = typeof options.model === 'string' ? options.model : plan.model;
  const request = buildRequest(format, { model, system: settings.system, tools: settings.tools, messages: plan.messages, options });
  return { ...planned, format, request };
}

/**
 * `window --agent <agent>`: the window from the store, with the same report as on a file. The
 * exchanges are those of the agent's whole history, numbered, titled and marked as `history`
 * shows them, the summarized ones included.
 */
export async function runAgentWindowCommand(agentId: string, flags: AgentWindowFlags, io: CliIo): Promise<void> {
  await withCliStore(io, flags, async (store) => {
    const { plan, exchanges, summary, format, request, pins } = await planAgentWindow(store, agentId, flags, io);
    if (flags.body) io.stdout.write(`${JSON.stringify(request, null, 2)}\n`);
    else if (flags.json) io.stdout.write(`${JSON.stringify({ agentId, ...agentWindowJson(plan, exchanges, format, request, pins) }, null, 2)}\n`);
    else {
      const tokens = summary && typeof summary.data.tokens === 'number' ? summary.data.tokens : null;
      const shown = { summary: summary && { summarizer: summary.data.summarizer, tokens }, pins: storedPinLines(pins ?? [], agentId) };
      io.stdout.write(renderWindowReport(plan, agentWindowRows(plan, exchanges), shown));
    }
  }, { create: false });
}

/**
 * Refuses, before any repair is reported, a conversation `--repair` could not make whole: a tool
 * call id used by two calls at once, which no repair can tell apart.
 * @throws SlidingContextError `DUPLICATE_TOOL_CALL_ID` (or what else the repaired messages fail on)
 */
function requireRepaired(messages: readonly ModelMessage[]): void {
  try {
    requireValidConversation(messages);
  } catch (error) {
    if (!isSlidingContextError(error, 'DUPLICATE_TOOL_CALL_ID')) throw error;
    const problem = error.message.replace(/; fix the conversation or repair its pairing explicitly\.$/, '');
    throw new SlidingContextError('DUPLICATE_TOOL_CALL_ID', `${problem}; --repair leaves a reused tool call id alone (it cannot tell which call a result meant): give each call its own id in the input. Nothing was repaired.`, { cause: error });
  }
}
