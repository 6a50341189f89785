import { z } from 'zod';
import { SlidingContextError } from '../../errors/sliding-context-error.js';
import { isRecord } from '../../message/is-record.js';
import { type Message, messageSchema, type ToolDefinition } from '../../message/message.js';
import { parseToolDefinitions } from '../../message/parse-messages.js';
import type { WireFormat } from '../../providers/wire-format.js';
import type { StoredMessage, TimelineFork } from '../../store/history-store.js';

/** Where a forked agent's history goes on from: its parent, and the parent's seq it forked at. */
const forkedFromSchema = z.object({ agentId: z.string(), seq: z.number().int().min(0) });

/** The first line of a JSONL export: what the agent was, beside its messages. */
const exportHeaderSchema = z.looseObject({
  'sliding-context': z.literal('export'),
  'version': z.literal(1),
  'agentId': z.string(),
  'provider': z.string().optional(),
  'model': z.string().optional(),
  'system': z.string().optional(),
  'tools': z.array(z.unknown()).optional(),
  'forkedFrom': forkedFromSchema.optional(),
});

/** What the header line of an export says about the agent. */
export interface ExportHeader {
  readonly agentId: string;
  readonly provider?: string | undefined;
  readonly model?: string | undefined;
  readonly system?: string | undefined;
  readonly tools?: readonly ToolDefinition[] | undefined;
}

/**
 * The `fork` event an export writes where a forked agent's history goes on from its parent: the
 * parent and its seq, and the child, when the fork was made.
 */
function forkEvent(fork: TimelineFork): Message {
  return { role: 'event', kind: 'fork', data: { from: { seq: fork.seq, agentId: fork.parentId }, agentId: fork.childId } };
}

/**
 * An agent's history as JSONL: a header line, then one message a line with the time it was
 * written (`createdAt`), events included. Each fork along the agent's path (`forks`, root side
 * first) is a `fork` event line where the child's history goes on from its parent, and the header
 * names the last one as `forkedFrom`. Returns the text and the lines after the header.
 */
export function historyJsonl(header: ExportHeader, rows: readonly StoredMessage[], forks: readonly TimelineFork[]): { text: string; lines: number } {
  const lines: unknown[] = [];
  const pending = [...forks];
  // A fork's event goes before the first message of its child: the forks before it first.
  const forksUpTo = (agentId: string | undefined) => {
    const end = pending.findIndex((fork) => fork.childId === agentId);
    for (const fork of pending.splice(0, agentId === undefined ? pending.length : end + 1)) lines.push({ ...forkEvent(fork), createdAt: fork.createdAt });
  };
  for (const row of rows) {
    if (pending.some((fork) => fork.childId === row.agentId)) forksUpTo(row.agentId);
    lines.push({ ...row.message, createdAt: row.createdAt });
  }
  forksUpTo(undefined);
  const last = forks.at(-1);
  const head = {
    'sliding-context': 'export',
    'version': 1,
    ...header,
    ...(last === undefined ? {} : { forkedFrom: { agentId: last.parentId, seq: last.seq } }),
  };
  return { text: `${[head, ...lines].map((line) => JSON.stringify(line)).join('\n')}\n`, lines: lines.length };
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
 * Reads a JSONL export back: the header's system prompt, tools and model, and the messages with
 * their events and the times they were written, as they were stored.
 * @throws SlidingContextError `INVALID_INPUT` naming the line that is not a message.
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
  const { system, tools, model } = header.data;
  return {
    format: 'neutral' as WireFormat,
    detected: true,
    system,
    tools: tools === undefined ? undefined : parseToolDefinitions(tools, `${source} line 1 tools`),
    messages,
    options: model === undefined ? {} : { model },
    createdAt,
  };
}
