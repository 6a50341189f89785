import { z } from 'zod';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import { isRecord } from '../message/is-record.js';
import { type Message, messageSchema } from '../message/message.js';
import { parseToolDefinitions } from '../message/parse-messages.js';
import { type WireFormat, wireFormats } from '../providers/wire-format-names.js';

/** Where a forked agent's history goes on from: its parent, and the parent's seq it forked at. */
const forkedFromSchema = z.object({ agentId: z.string(), seq: z.number().int().min(0) });

/** The first line of a JSONL export: what the agent was, beside its messages. */
const exportHeaderSchema = z.looseObject({
  'sliding-context': z.literal('export'),
  'version': z.literal(1),
  'agentId': z.string(),
  'provider': z.string().optional(),
  'format': z.string().optional(),
  'model': z.string().optional(),
  'system': z.string().optional(),
  'tools': z.array(z.unknown()).optional(),
  'forkedFrom': forkedFromSchema.optional(),
});

/** True when the first line of a file is a JSONL export's header. */
export function isExportHeader(line: string | undefined): boolean {
  if (line === undefined || !line.includes('"sliding-context"')) return false;
  try {
    return exportHeaderSchema.safeParse(JSON.parse(line)).success;
  } catch {
    return false;
  }
}

/** A line's `createdAt`, taken off the message: a date, or undefined for a line without one. */
function takeCreatedAt(json: unknown, where: string): { message: unknown; createdAt: Date | undefined } {
  if (!isRecord(json) || !('createdAt' in json)) return { message: json, createdAt: undefined };
  const { createdAt, ...message } = json;
  const date = typeof createdAt === 'string' ? new Date(createdAt) : undefined;
  if (date === undefined || Number.isNaN(date.getTime())) {
    throw new SlidingContextError('INVALID_TRANSCRIPT', `${where}: createdAt is not a date (expected an ISO time such as 2026-11-21T08:00:00.000Z); nothing was imported.`);
  }
  return { message, createdAt: date };
}

/**
 * Reads a JSONL export back: the header's system prompt, tools, provider, model and the wire format
 * the agent's requests were built in (one this version knows, else none), and the messages with
 * their events and the times they were written, as they were stored.
 * @throws SlidingContextError `INVALID_TRANSCRIPT` naming the line that is not a message.
 */
export function readExportLines(lines: readonly string[], source: string) {
  const [first, ...rest] = lines;
  const header = exportHeaderSchema.safeParse(JSON.parse(first ?? 'null'));
  if (!header.success) throw new SlidingContextError('INVALID_TRANSCRIPT', `${source} line 1: not a sliding-context export header; export one with \`sliding-context export <agent> --format jsonl\`.`);
  const messages: Message[] = [];
  const createdAt: (Date | undefined)[] = [];
  rest.forEach((line, index) => {
    if (line.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      json = undefined;
    }
    const where = `${source} line ${index + 2}`;
    const taken = takeCreatedAt(json, where);
    const parsed = messageSchema.safeParse(taken.message);
    if (!parsed.success) throw new SlidingContextError('INVALID_TRANSCRIPT', `${where}: not a message (${parsed.error.issues[0]?.message ?? 'invalid'}); nothing was imported.`);
    messages.push(parsed.data);
    createdAt.push(taken.createdAt);
  });
  const { system, tools, model, provider } = header.data;
  const agentFormat = wireFormats.find((known) => known === header.data.format);
  return {
    format: 'neutral' as WireFormat,
    detected: true,
    provider,
    agentFormat,
    system,
    tools: tools === undefined ? undefined : parseToolDefinitions(tools, `${source} line 1 tools`),
    messages,
    options: model === undefined ? {} : { model },
    createdAt,
  };
}
