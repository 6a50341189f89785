import { openConversation } from '../../conversation/conversation.js';
import { requireValidConversation } from '../../exchange/require-valid-conversation.js';
import { applyEvents } from '../../message/apply-events.js';
import { parseToolDefinitions } from '../../message/parse-messages.js';
import type { HistoryStore } from '../../store/history-store.js';
import { resolveBudgetTokens } from '../../window/budget-tokens.js';
import type { CliIo } from '../cli-io.js';
import { loadCliCounter } from '../load-cli-counter.js';
import { type StoreFlags, withCliStore } from '../open-cli-store.js';
import { parseConversationInput, parseFormatOption, readInputText, resolveTarget } from '../read-conversation-input.js';
import { formatAge } from '../render/format-age.js';
import { formatNumber } from '../render/format-number.js';
import { renderHistoryReport } from '../render/history-report.js';
import { renderWindowReport } from '../render/window-report.js';
import { toWindowJson } from './window-command.js';

/** Flags shared by the store commands. */
export interface StoreCommandFlags extends StoreFlags {
  readonly json?: boolean | undefined;
}

/** Flags that choose the model and budget an agent is counted for. */
interface TargetFlags {
  readonly provider?: string | undefined;
  readonly model?: string | undefined;
  readonly budget?: string | undefined;
}

const print = (io: CliIo, json: boolean | undefined, data: unknown, text: string) =>
  io.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : `${text}\n`);

/** `import <file>`: stores a conversation (any format) as a new agent, or appends to one. */
export async function runImportCommand(
  file: string,
  flags: StoreCommandFlags & TargetFlags & { readonly format?: string | undefined; readonly agent?: string | undefined },
  io: CliIo,
): Promise<void> {
  const input = parseConversationInput(await readInputText(io, file), file === '-' ? 'stdin' : file, parseFormatOption(flags.format));
  const target = resolveTarget(input, flags);
  const counter = await loadCliCounter(io, target.provider, target.model);
  await withCliStore(io, flags, async (store) => {
    // Check the conversation as a whole, after what the agent already holds, before anything is
    // written: an import is all or nothing.
    const earlier = flags.agent === undefined ? [] : (await store.history(flags.agent)).map((entry) => entry.message);
    requireValidConversation(applyEvents([...earlier, ...input.messages]));
    const agentId =
      flags.agent ??
      (await store.createAgent({
        ...target,
        format: input.format,
        ...(input.system === undefined ? {} : { system: input.system }),
        ...(input.tools === undefined ? {} : { tools: input.tools }),
      }));
    const tokens = input.messages.map((message) => (message.role === 'event' ? null : counter.countMessage({ ...target, message }).tokens));
    const { lastSeq } = await store.append(agentId, input.messages, { tokens });
    if (!flags.json) io.stderr.write(`imported ${input.messages.length} messages (${input.format}${input.detected ? ', detected' : ''}); last seq ${lastSeq}\n`);
    print(io, flags.json, { agentId }, agentId);
  });
}

/** `agents`: every agent with its message count, tokens and last activity. */
export async function runAgentsCommand(flags: StoreCommandFlags, io: CliIo): Promise<void> {
  await withCliStore(io, flags, async (store) => {
    const agents = await store.listAgents();
    const now = new Date();
    const lines = agents.map((agent) =>
      [agent.agentId.padEnd(74), `${formatNumber(agent.messages)} messages`.padStart(16), `${formatNumber(agent.tokens)} tokens`.padStart(16), formatAge(agent.lastActivity, now)].join('  '),
    );
    print(io, flags.json, agents, lines.length > 0 ? lines.join('\n') : '(no agents yet)');
  });
}

/** Opens an agent's conversation with the model it was stored for (or the flags' model). */
async function openAgent(io: CliIo, store: HistoryStore, agentId: string, flags: TargetFlags) {
  const meta = await store.agentMeta(agentId);
  const provider = flags.provider ?? (typeof meta.provider === 'string' ? meta.provider : 'openai');
  const model = flags.model ?? (typeof meta.model === 'string' ? meta.model : 'gpt-4o');
  const counter = await loadCliCounter(io, provider, model);
  // The agent's own budget unless one is given now.
  const given = flags.budget !== undefined || io.env.SLIDING_CONTEXT_TOKENS !== undefined;
  const budgetTokens = given ? resolveBudgetTokens({ budgetTokens: flags.budget, environmentValue: io.env.SLIDING_CONTEXT_TOKENS }) : undefined;
  const tools = Array.isArray(meta.tools) ? parseToolDefinitions(meta.tools, 'stored tools') : undefined;
  return openConversation({ store, agentId, provider, model, counter, budgetTokens, tools });
}

/** `history <agent>`: the exchanges out of and in the window, with the rule between them. */
export async function runHistoryCommand(
  agentId: string,
  flags: StoreCommandFlags & TargetFlags,
  io: CliIo,
): Promise<void> {
  await withCliStore(io, flags, async (store) => {
    const conversation = await openAgent(io, store, agentId, flags);
    const { report } = conversation.request();
    const exchanges = await conversation.history();
    if (flags.json) {
      const json = toWindowJson(report, 'neutral', undefined);
      io.stdout.write(`${JSON.stringify({ ...json, agentId, exchanges: report.exchanges.map((exchange, index) => ({ ...exchange, title: exchanges[index]?.title, tools: exchanges[index]?.tools, createdAt: exchanges[index]?.createdAt })), request: undefined }, null, 2)}\n`);
      return;
    }
    io.stdout.write(renderHistoryReport(agentId, report, exchanges, new Date()));
  });
}

/** `window --agent <agent>`: the window from the store, with the same report as on a file. */
export async function runAgentWindowCommand(
  agentId: string,
  flags: StoreCommandFlags & TargetFlags & { readonly body?: boolean | undefined },
  io: CliIo,
): Promise<void> {
  await withCliStore(io, flags, async (store) => {
    const conversation = await openAgent(io, store, agentId, flags);
    const { request, report } = conversation.request();
    if (flags.body) io.stdout.write(`${JSON.stringify(request, null, 2)}\n`);
    else if (flags.json) io.stdout.write(`${JSON.stringify({ agentId, ...toWindowJson(report, 'neutral', request) }, null, 2)}\n`);
    else io.stdout.write(renderWindowReport(report, applyEvents((await store.history(agentId)).map((entry) => entry.message))));
  });
}

/** `fork`, `clear`, `mark`, `rewind`: events in an agent's history. */
export async function runAgentEventCommand(
  action: 'fork' | 'clear' | 'mark' | 'rewind',
  agentId: string,
  label: string | undefined,
  flags: StoreCommandFlags,
  io: CliIo,
): Promise<void> {
  await withCliStore(io, flags, async (store) => {
    if (action === 'fork') {
      const child = await store.fork(agentId);
      print(io, flags.json, { agentId: child }, child);
      return;
    }
    const message = action === 'clear' ? { role: 'event' as const, kind: action } : { role: 'event' as const, kind: action, ...(label === undefined ? {} : { label }) };
    // A rewind must name a reachable mark: check before writing.
    applyEvents([...(await store.history(agentId)).map((entry) => entry.message), message]);
    const { lastSeq } = await store.append(agentId, [message]);
    print(io, flags.json, { agentId, seq: lastSeq, event: action, ...(label === undefined ? {} : { label }) }, `${action}${label === undefined ? '' : ` "${label}"`} recorded for ${agentId} at seq ${lastSeq}`);
  });
}
