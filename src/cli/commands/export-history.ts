import { agentSettings } from '../../conversation/agent-settings.js';
import { SlidingContextError } from '../../errors/sliding-context-error.js';
import { applyEvents } from '../../message/apply-events.js';
import { buildRequest, type WireFormat, wireFormats } from '../../providers/wire-format.js';
import { formatAgentId, parseAgentId } from '../../store/agent-id.js';
import type { HistoryStore, TimelineFork } from '../../store/history-store.js';
import { defaultModelFor } from '../../tokens/default-target.js';
import { providerOfFormat } from '../read-conversation-input.js';
import { historyJsonl } from './history-jsonl.js';
import { agentWireFormat } from '../../views/agent-wire-format.js';

/** The formats `export` writes: a provider body (or the neutral one), or JSONL with every event. */
export const EXPORT_FORMATS = [...wireFormats, 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** What an export wrote, and what of the history its format could not hold. */
export interface ExportedHistory {
  readonly text: string;
  readonly format: ExportFormat;
  readonly messages: number;
  /** Events the format cannot represent, by kind (a wire format holds none: it has what the model sees). */
  readonly eventsLeftOut: Readonly<Record<string, number>>;
  /** Messages a clear or rewind hid, which a wire format leaves out. */
  readonly hiddenMessagesLeftOut: number;
  /** A wire format's body: the model it names, and why, when that is not the agent's. */
  readonly body?: { readonly model: string; readonly note: string | undefined } | undefined;
}

/**
 * The model a body in `format` names: `--model` when given, else the agent's, unless that is
 * another provider's (an OpenAI agent exported as an Anthropic body): then the format's
 * provider's default, with a note that says so.
 */
function bodyModel(format: WireFormat, agent: { provider: string | undefined; model: string | undefined }, modelFlag: string | undefined) {
  const formatProvider = providerOfFormat[format];
  const agentModel = agent.model === undefined ? undefined : `${agent.provider ?? 'unknown'}/${agent.model}`;
  if (modelFlag !== undefined) {
    return { model: modelFlag, note: modelFlag === agent.model ? undefined : `the ${format} body names ${modelFlag} (--model)${agentModel === undefined ? '' : `; the agent's model is ${agentModel}`}` };
  }
  if (formatProvider !== undefined && agent.provider !== undefined && agent.provider !== formatProvider) {
    const model = defaultModelFor(formatProvider);
    return { model, note: `the agent's model ${agentModel ?? agent.provider} is for ${agent.provider}, not ${formatProvider}; the ${format} body names ${model}, ${formatProvider}'s default (--model chooses another)` };
  }
  return { model: agent.model ?? defaultModelFor(formatProvider), note: undefined };
}

/** The format `--format` names, or `INVALID_OPTION`. */
export function parseExportFormat(value: string | undefined): ExportFormat {
  const format = EXPORT_FORMATS.find((name) => name === (value ?? 'jsonl'));
  if (format === undefined) throw new SlidingContextError('INVALID_OPTION', `--format: "${String(value)}" is not an export format; use one of ${EXPORT_FORMATS.join(', ')}.`);
  return format;
}

/** The forks that lead to an agent, root side first: none for a root. */
async function forksAlongPath(store: HistoryStore, agentId: string): Promise<TimelineFork[]> {
  const { forks } = await store.timeline(agentId, { acrossClears: true });
  const path: TimelineFork[] = [];
  let child = formatAgentId(parseAgentId(agentId));
  for (let fork = forks.find((each) => each.childId === child); fork; fork = forks.find((each) => each.childId === child)) {
    path.unshift(fork);
    child = fork.parentId;
  }
  return path;
}

/**
 * An agent's whole history (back across clears, its ancestors' part included) as text: JSONL
 * has a header line, then one neutral message a line, events included; a wire format is the body
 * of what the model sees now, with the agent's system prompt and tools, for `options.model` or
 * a model of the format's provider (see {@link bodyModel}).
 */
export async function exportAgentHistory(
  store: HistoryStore,
  agentId: string,
  format: ExportFormat,
  options: { readonly model?: string | undefined } = {},
): Promise<ExportedHistory> {
  const [rows, meta] = await Promise.all([store.history(agentId, { acrossClears: true }), store.agentMeta(agentId)]);
  const settings = agentSettings(meta);
  const provider = typeof meta.provider === 'string' ? meta.provider : undefined;
  const model = typeof meta.model === 'string' ? meta.model : undefined;
  const history = rows.map((row) => row.message);
  if (format === 'jsonl') {
    const header = {
      agentId,
      ...(provider === undefined ? {} : { provider, format: agentWireFormat(meta, provider) }),
      ...(model === undefined ? {} : { model }),
      ...(settings.system === undefined ? {} : { system: settings.system }),
      ...(settings.tools === undefined ? {} : { tools: settings.tools }),
    };
    const { text, lines } = historyJsonl(header, rows, await forksAlongPath(store, agentId));
    return { text, format, messages: lines, eventsLeftOut: {}, hiddenMessagesLeftOut: 0 };
  }
  const visible = applyEvents(history);
  const eventsLeftOut: Record<string, number> = {};
  for (const message of history) if (message.role === 'event') eventsLeftOut[message.kind] = (eventsLeftOut[message.kind] ?? 0) + 1;
  const sent = history.filter((message) => message.role !== 'event').length;
  const chosen = bodyModel(format, { provider, model }, options.model);
  const body = buildRequest(format, { model: chosen.model, system: settings.system, tools: settings.tools, messages: visible });
  return { text: `${JSON.stringify(body, null, 2)}\n`, format, messages: visible.length, eventsLeftOut, hiddenMessagesLeftOut: sent - visible.length, body: chosen };
}
