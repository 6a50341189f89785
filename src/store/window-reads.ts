/**
 * Reads of what an agent's model sees, in time that grows with what is read: the tail a window
 * holds, the visible length, the outline without bodies, and the timeline of the whole path.
 */
import { sql } from 'kysely';
import { formatAgentId, parseAgentId } from './agent-id.js';
import type { MessageOutline, MessagePosition, OutlinedToolPart, OwnRowsRead, StoredMessage, TimelineEntry, TimelineFork, WindowTail } from './history-store-types.js';
import { pathSinceClear, segmentPosition, visiblePath } from './lineage.js';
import { modelMessageRows, type StoreDatabase, toStoredMessage } from './stored-rows.js';
import type { SeqSegment } from './visible-segments.js';

/**
 * Reads what a window can hold, in time that grows with the window, not the history: the
 * messages before the first exchange (and the first exchange, for a pinned one), then whole
 * exchanges from the newest back until their stored counts reach `minTokens`. Marks and
 * rewinds are resolved from the event rows alone; the messages a rewind hid are never read.
 * With `after` (the last message a summary covers), the tail stops there, if the model sees it.
 */
export async function windowTail(
  db: StoreDatabase,
  agentId: string,
  options: { readonly minTokens: number; readonly withFirstExchange: boolean; readonly after?: MessagePosition | undefined },
): Promise<WindowTail> {
  const key = parseAgentId(agentId);
  const { segments, marks, lastSeq, pinEvents } = await visiblePath(db, key, agentId);

  const head: StoredMessage[] = [];
  let headEnd: { segment: number; seq: number } | undefined;
  let starts = 0;
  const headStarts = options.withFirstExchange ? 1 : 0;
  reading: for (const [index, segment] of segments.entries()) {
    for (let from = segment.fromSeq; from <= segment.toSeq;) {
      const rows = await modelMessageRows(db, key.rootId, segment.agentId).where('seq', '>=', from).where('seq', '<=', segment.toSeq).orderBy('seq').limit(64).execute();
      if (rows.length === 0) break;
      for (const row of rows) {
        if (row.starts_exchange && ++starts > headStarts) break reading;
        head.push(toStoredMessage(key.rootId, segment.agentId, row));
        headEnd = { segment: index, seq: row.seq };
      }
      from = (rows.at(-1)?.seq ?? segment.toSeq) + 1;
    }
  }

  // The tail starts after the head, and after `options.after` when the model sees it.
  let start = headEnd;
  const after = options.after && segmentPosition(segments, options.after);
  if (after && (!start || after.segment > start.segment || (after.segment === start.segment && after.seq > start.seq))) start = after;
  const newestFirst: StoredMessage[] = [];
  let tokens = 0;
  for (let index = segments.length - 1; index >= (start?.segment ?? 0); index--) {
    const segment = segments[index] as SeqSegment;
    const floor = start?.segment === index ? start.seq + 1 : segment.fromSeq;
    for (let to = segment.toSeq; to >= floor;) {
      const rows = await modelMessageRows(db, key.rootId, segment.agentId).where('seq', '>=', floor).where('seq', '<=', to).orderBy('seq', 'desc').limit(256).execute();
      if (rows.length === 0) break;
      for (const row of rows) {
        const stored = toStoredMessage(key.rootId, segment.agentId, row);
        newestFirst.push(stored);
        tokens += row.tokens ?? Math.ceil(row.body.length / 4);
        if (row.starts_exchange && tokens >= options.minTokens) return { head, tail: newestFirst.reverse(), complete: false, marks, lastSeq, pinEvents };
      }
      to = (rows.at(-1)?.seq ?? floor) - 1;
    }
  }
  return { head, tail: newestFirst.reverse(), complete: true, marks, lastSeq, pinEvents };
}

/**
 * How many stored messages (events included) lie in what the agent's model sees now: counted
 * from the seq runs after clears, marks and rewinds, without reading them.
 */
export async function visibleLength(db: StoreDatabase, agentId: string): Promise<number> {
  const { segments } = await visiblePath(db, parseAgentId(agentId), agentId);
  return segments.reduce((sum, segment) => sum + Math.max(0, segment.toSeq - segment.fromSeq + 1), 0);
}

/** Which of `positions` lie in what the agent's model sees now (not hidden by a clear or rewind). */
export async function visible(db: StoreDatabase, agentId: string, positions: readonly MessagePosition[]): Promise<boolean[]> {
  const key = parseAgentId(agentId);
  const { segments } = await visiblePath(db, key, agentId);
  return positions.map((position) => segmentPosition(segments, position) !== undefined);
}

/** The segments, or with `afterSeq` only the agent's own rows after it. */
function ownRowsAfter(segments: readonly SeqSegment[], id: string, afterSeq: number | undefined): readonly SeqSegment[] {
  if (afterSeq === undefined) return segments;
  return segments
    .filter((segment) => segment.agentId === id && segment.toSeq > afterSeq)
    .map((segment) => ({ ...segment, fromSeq: Math.max(segment.fromSeq, afterSeq + 1) }));
}

/**
 * The messages the model sees, outlined from their metadata without reading their bodies:
 * role, stored count, time, the title of an exchange start, and the tool calls and results.
 * Enough to plan a window and draw the history view of a long history quickly.
 */
export async function outline(db: StoreDatabase, agentId: string, options: OwnRowsRead = {}): Promise<MessageOutline[]> {
  const key = parseAgentId(agentId);
  const { segments } = await visiblePath(db, key, agentId, options.lastSeq);
  const outlined: MessageOutline[] = [];
  for (const segment of ownRowsAfter(segments, key.id, options.afterSeq)) {
    // Each read is one aggregated row: PGlite decodes one large value far faster than many rows.
    const [messages, parts] = await Promise.all([
      sql<{ rows: string | null }>`
        select json_agg(json_build_array(seq, kind, tokens, count_target, count_method, count_exact, created_at, title) order by seq)::text as rows
        from messages
        where root_id = ${key.rootId} and agent_id = ${segment.agentId} and seq between ${segment.fromSeq} and ${segment.toSeq}
          and kind in ('system', 'user', 'assistant', 'tool')`.execute(db),
      sql<{ rows: string | null }>`
        select json_agg(json_build_array(seq, part_index, type, tool_call_id, tool_name) order by seq, part_index)::text as rows
        from tool_parts
        where root_id = ${key.rootId} and agent_id = ${segment.agentId} and seq between ${segment.fromSeq} and ${segment.toSeq}`.execute(db),
    ]);
    const toolParts = new Map<number, OutlinedToolPart[]>();
    for (const [seq, partIndex, type, toolCallId, toolName] of JSON.parse(parts.rows[0]?.rows ?? '[]') as [number, number, OutlinedToolPart['type'], string, string][]) {
      const ofMessage = toolParts.get(seq) ?? [];
      ofMessage.push({ partIndex, type, toolCallId, toolName });
      toolParts.set(seq, ofMessage);
    }
    const publicId = formatAgentId({ rootId: key.rootId, id: segment.agentId });
    type Row = [number, MessageOutline['role'], number | null, string | null, string | null, boolean | null, string, string | null];
    for (const [seq, role, tokens, target, method, exact, createdAt, title] of JSON.parse(messages.rows[0]?.rows ?? '[]') as Row[]) {
      outlined.push({
        agentId: publicId,
        seq,
        role,
        count: tokens === null || target === null ? null : { tokens, exact: exact === true, method: method ?? 'unknown', target },
        createdAt: new Date(createdAt),
        title,
        toolParts: toolParts.get(seq) ?? [],
      });
    }
  }
  return outlined;
}

/**
 * Every stored row of the path an agent plays, events included, without bodies: since its
 * latest clear, or with `acrossClears` back to its root's first message. With the forks along
 * the path and those made from the agent itself, for the history view.
 */
export async function timeline(
  db: StoreDatabase,
  agentId: string,
  options: OwnRowsRead & { readonly acrossClears?: boolean | undefined } = {},
): Promise<{ entries: TimelineEntry[]; forks: TimelineFork[] }> {
  const key = parseAgentId(agentId);
  const { path } = await pathSinceClear(db, key, { acrossClears: options.acrossClears === true, lastSeq: options.lastSeq });
  const entries: TimelineEntry[] = [];
  for (const segment of ownRowsAfter(path, key.id, options.afterSeq)) {
    const [messages, parts] = await Promise.all([
      sql<{ rows: string | null }>`
        select json_agg(json_build_array(seq, kind, tokens, created_at, starts_exchange, title, case when kind in ('mark', 'rewind') then body->>'label' end) order by seq)::text as rows
        from messages
        where root_id = ${key.rootId} and agent_id = ${segment.agentId} and seq between ${segment.fromSeq} and ${segment.toSeq}`.execute(db),
      sql<{ rows: string | null }>`
        select json_agg(json_build_array(seq, tool_name) order by seq, part_index)::text as rows
        from tool_parts
        where root_id = ${key.rootId} and agent_id = ${segment.agentId} and seq between ${segment.fromSeq} and ${segment.toSeq} and type = 'tool-call'`.execute(db),
    ]);
    const toolNames = new Map<number, string[]>();
    for (const [seq, name] of JSON.parse(parts.rows[0]?.rows ?? '[]') as [number, string][]) toolNames.set(seq, [...(toolNames.get(seq) ?? []), name]);
    const publicId = formatAgentId({ rootId: key.rootId, id: segment.agentId });
    type Row = [number, string, number | null, string, boolean, string | null, string | null];
    for (const [seq, kind, tokens, createdAt, startsExchange, title, label] of JSON.parse(messages.rows[0]?.rows ?? '[]') as Row[]) {
      const names = toolNames.get(seq) ?? [];
      entries.push({ agentId: publicId, seq, kind, label, tokens, createdAt: new Date(createdAt), startsExchange, title, toolNames: names });
    }
  }
  const onPath = new Map(path.map((segment) => [segment.agentId, segment]));
  const children = await db
    .selectFrom('agents')
    .select(['id', 'parent_id', 'fork_seq', 'name', 'created_at'])
    .where('root_id', '=', key.rootId)
    .where('parent_id', 'in', [...onPath.keys()])
    .orderBy('created_at')
    .execute();
  const forks = children
    .filter((child) => {
      const segment = onPath.get(child.parent_id ?? '');
      // Forks along the path, and those made from the agent itself; not a sibling's elsewhere.
      if (segment === undefined || child.fork_seq === null) return false;
      return (onPath.has(child.id) || child.parent_id === key.id) && child.fork_seq >= segment.fromSeq - 1 && child.fork_seq <= segment.toSeq;
    })
    .map((child) => ({
      parentId: formatAgentId({ rootId: key.rootId, id: child.parent_id ?? '' }),
      seq: child.fork_seq ?? 0,
      childId: formatAgentId({ rootId: key.rootId, id: child.id }),
      childName: child.name,
      createdAt: new Date(child.created_at),
    }));
  return { entries, forks };
}
