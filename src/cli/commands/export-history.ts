import { z } from 'zod';
import { agentSettings } from '../../conversation/agent-settings.js';
import { SlidingContextError } from '../../errors/sliding-context-error.js';
import { applyEvents } from '../../message/apply-events.js';
import { type Message, messageSchema } from '../../message/message.js';
import { parseToolDefinitions } from '../../message/parse-messages.js';
import { buildRequest, type WireFormat, wireFormats } from '../../providers/wire-format.js';
import type { HistoryStore } from '../../store/history-store.js';

/** The formats `export` writes: a provider body (or the neutral one), or JSONL with every event. */
export const EXPORT_FORMATS = [...wireFormats, 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The first line of a JSONL export: what the agent was, beside its messages. */
const exportHeaderSchema = z.looseObject({
  'sliding-context': z.literal('export'),
  'version': z.literal(1),
  'agentId': z.string(),
  'provider': z.string().optional(),
  'model': z.string().optional(),
  'system': z.string().optional(),
  'tools': z.array(z.unknown()).optional(),
});

/** What an export wrote, and what of the history its format could not hold. */
export interface ExportedHistory {
  readonly text: string;
  readonly format: ExportFormat;
  readonly messages: number;
  /** Events the format cannot represent, by kind (a wire format holds none: it has what the model sees). */
  readonly eventsLeftOut: Readonly<Record<string, number>>;
  /** Messages a clear or rewind hid, which a wire format leaves out. */
  readonly hiddenMessagesLeftOut: number;
}

/** The format `--format` names, or `INVALID_OPTION`. */
export function parseExportFormat(value: string | undefined): ExportFormat {
  const format = EXPORT_FORMATS.find((name) => name === (value ?? 'jsonl'));
  if (format === undefined) throw new SlidingContextError('INVALID_OPTION', `--format: "${String(value)}" is not an export format; use one of ${EXPORT_FORMATS.join(', ')}.`);
  return format;
}

/**
 * An agent's whole history (back across clears, its ancestors' part included) as text: JSONL
 * has a header line, then one neutral message a line, events included; a wire format is the body
 * of what the model sees now, with the agent's system prompt and tools.
 */
export async function exportAgentHistory(store: HistoryStore, agentId: string, format: ExportFormat): Promise<ExportedHistory> {
  const [rows, meta] = await Promise.all([store.history(agentId, { acrossClears: true }), store.agentMeta(agentId)]);
  const settings = agentSettings(meta);
  const provider = typeof meta.provider === 'string' ? meta.provider : undefined;
  const model = typeof meta.model === 'string' ? meta.model : undefined;
  const history = rows.map((row) => row.message);
  if (format === 'jsonl') {
    const header = {
      'sliding-context': 'export',
      'version': 1,
      agentId,
      ...(provider === undefined ? {} : { provider }),
      ...(model === undefined ? {} : { model }),
      ...(settings.system === undefined ? {} : { system: settings.system }),
      ...(settings.tools === undefined ? {} : { tools: settings.tools }),
    };
    const text = `${[header, ...history].map((line) => JSON.stringify(line)).join('\n')}\n`;
    return { text, format, messages: history.length, eventsLeftOut: {}, hiddenMessagesLeftOut: 0 };
  }
  const visible = applyEvents(history);
  const eventsLeftOut: Record<string, number> = {};
  for (const message of history) if (message.role === 'event') eventsLeftOut[message.kind] = (eventsLeftOut[message.kind] ?? 0) + 1;
  const sent = history.filter((message) => message.role !== 'event').length;
  const body = buildRequest(format, { model: model ?? 'gpt-4o', system: settings.system, tools: settings.tools, messages: visible });
  return { text: `${JSON.stringify(body, null, 2)}\n`, format, messages: visible.length, eventsLeftOut, hiddenMessagesLeftOut: sent - visible.length };
}

/** True when the first line of a file is a JSONL export's header. */
export function isExportHeader(line: string | undefined): boolean {
  if (line === undefined || !line.includes('"sliding-context"')) return false;
  try {
    return exportHeaderSchema.safeParse(JSON.parse(line)).success;
  } catch {
    return false;
  }
}

/**
 * Reads a JSONL export back: the header's system prompt, tools and model, and the messages with
 * their events, as they were stored.
 * @throws SlidingContextError `INVALID_TRANSCRIPT` naming the line that is not a message.
 */
export function readExportLines(lines: readonly string[], source: string) {
  const [first, ...rest] = lines;
  const header = exportHeaderSchema.safeParse(JSON.parse(first ?? 'null'));
  if (!header.success) throw new SlidingContextError('INVALID_TRANSCRIPT', `${source} line 1: not a sliding-context export header; export one with \`sliding-context export <agent> --format jsonl\`.`);
  const messages: Message[] = [];
  rest.forEach((line, index) => {
    if (line.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      json = undefined;
    }
    const parsed = messageSchema.safeParse(json);
    if (!parsed.success) throw new SlidingContextError('INVALID_TRANSCRIPT', `${source} line ${index + 2}: not a message (${parsed.error.issues[0]?.message ?? 'invalid'}); nothing was imported.`);
    messages.push(parsed.data);
  });
  const { system, tools, model } = header.data;
  return {
    format: 'neutral' as WireFormat,
    detected: true,
    system,
    tools: tools === undefined ? undefined : parseToolDefinitions(tools, `${source} line 1 tools`),
    messages,
    options: model === undefined ? {} : { model },
  };
}
