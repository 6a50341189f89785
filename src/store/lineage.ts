/**
 * An agent's lineage: the seq runs it replays through its ancestors back to the latest `clear`,
 * the runs its model sees after marks and rewinds, forking, and reading the whole path.
 */
import { sql } from 'kysely';
import { type AgentKey, parseAgentId } from './agent-id.js';
import type { MessagePosition, StoredMessage } from './history-store-types.js';
import { messageRows, requireAgent, type StoreDatabase, toStoredMessage } from './stored-rows.js';
import { decodeStoredJson, encodeStoredJson } from './stored-json.js';
import { type SeqSegment, visibleSegments } from './visible-segments.js';

/** Where a stored message lies among visible segments: the segment's index and the seq. */
export function segmentPosition(segments: readonly SeqSegment[], position: MessagePosition): { segment: number; seq: number } | undefined {
  const segment = segmentIndex(segments, parseAgentId(position.agentId).id, position.seq);
  return segment === -1 ? undefined : { segment, seq: position.seq };
}

/** The index of the segment holding seq `seq` of agent `id` (the agent's own id, not the public one), or −1. */
function segmentIndex(segments: readonly SeqSegment[], id: string, seq: number): number {
  return segments.findIndex((segment) => segment.agentId === id && seq >= segment.fromSeq && seq <= segment.toSeq);
}

/** A mark's or rewind's label as read by `body->>'label'`, unescaped when its row is escaped. */
function labelOf(row: { readonly label: string | null; readonly body_escaped: boolean }): string | undefined {
  if (row.label === null) return undefined;
  const label = decodeStoredJson(row.label, row.body_escaped);
  return typeof label === 'string' ? label : undefined;
}

/**
 * The seq runs an agent replays, root side first: each ancestor up to the seq its child forked
 * at, then the agent itself, starting at the most recent `clear` on that path (included).
 * `db` may be a transaction; `lastSeq` ends the agent's own run (default: its last seq now);
 * `acrossClears` goes back to the root's first message instead of stopping at a clear.
 */
export async function pathSinceClear(
  db: StoreDatabase,
  key: AgentKey,
  { lastSeq, acrossClears = false }: { lastSeq?: number | undefined; acrossClears?: boolean } = {},
): Promise<{ path: SeqSegment[]; lastSeq: number }> {
  const leaf = await requireAgent(db, key);
  const chain = await db
    .selectFrom('agents')
    .select(['id', 'fork_seq', 'parent_id'])
    .where('root_id', '=', key.rootId)
    .where('id', 'in', [...leaf.lineage, key.id])
    .execute();
  const byId = new Map(chain.map((row) => [row.id, row]));
  const path: SeqSegment[] = [];
  let upTo = lastSeq ?? leaf.last_seq;
  for (let current: string | null = key.id; current !== null;) {
    const agent = byId.get(current);
    if (!agent) break;
    const clear = await db
      .selectFrom('messages')
      .select(({ fn }) => fn.max('seq').as('seq'))
      .where('root_id', '=', key.rootId)
      .where('agent_id', '=', current)
      .where('kind', '=', 'clear')
      .where('seq', '<=', upTo)
      .executeTakeFirst();
    const clearSeq = acrossClears ? undefined : (clear?.seq ?? undefined);
    path.unshift({ agentId: current, fromSeq: clearSeq ?? 1, toSeq: upTo });
    if (clearSeq !== undefined) break;
    upTo = agent.fork_seq ?? 0;
    current = agent.parent_id;
  }
  return { path, lastSeq: lastSeq ?? leaf.last_seq };
}

/**
 * The seq runs of the lineage path the model sees, after clears, marks and rewinds, the agent's
 * own last seq they were read at (`agentId` names it in errors), and how many pin and unpin
 * events lie on those runs; `db` and `lastSeq` as for {@link pathSinceClear}.
 */
export async function visiblePath(
  db: StoreDatabase,
  key: AgentKey,
  agentId: string,
  lastSeq?: number,
): Promise<{ segments: SeqSegment[]; marks: (string | undefined)[]; lastSeq: number; pinEvents: number }> {
  const { path, lastSeq: readAt } = await pathSinceClear(db, key, { lastSeq });
  // Each read matches a partial index: marks and rewinds, then pins and unpins.
  const eventsOf = (kinds: readonly string[]) =>
    Promise.all(
      path.map((segment, index) =>
        db
          .selectFrom('messages')
          .select(['seq', 'kind', 'body_escaped', sql<string | null>`body->>'label'`.as('label')])
          .where('root_id', '=', key.rootId)
          .where('agent_id', '=', segment.agentId)
          .where('kind', 'in', kinds)
          .where('seq', '>=', segment.fromSeq)
          .where('seq', '<=', segment.toSeq)
          .orderBy('seq')
          .execute()
          .then((rows) => rows.map((row) => ({ segment: index, seq: row.seq, kind: row.kind as 'mark' | 'rewind', label: labelOf(row) }))),
      ),
    ).then((events) => events.flat());
  const [events, pins] = await Promise.all([eventsOf(['mark', 'rewind']), eventsOf(['pin', 'unpin'])]);
  const visible = visibleSegments(path, events, (event) => `agent ${agentId}, seq ${event.seq} (a rewind)`);
  // A pin a rewind hid is undone with the rest: only those on the visible runs count.
  const pinEvents = pins.filter((event) => segmentIndex(visible.segments, path[event.segment]?.agentId ?? '', event.seq) !== -1).length;
  return { ...visible, lastSeq: readAt, pinEvents };
}

/** Forks an agent at its current last seq: the child `id` sees the parent's history up to there. */
export async function insertFork(db: StoreDatabase, key: AgentKey, id: string, meta: Record<string, unknown>, name: string | undefined): Promise<void> {
  const parent = await requireAgent(db, key);
  const stored = encodeStoredJson({ ...parent.meta, ...meta });
  await db
    .insertInto('agents')
    .values({
      root_id: key.rootId,
      id,
      parent_id: key.id,
      fork_seq: parent.last_seq,
      lineage: JSON.stringify([...parent.lineage, key.id]),
      last_seq: 0,
      meta: stored.text,
      meta_escaped: stored.escaped,
      // The child sees what the parent sees now.
      prefix_digest: parent.prefix_digest,
      prefix_length: parent.prefix_length,
      // A name is the user's for one agent: a fork does not inherit it.
      name: name ?? null,
    })
    .execute();
}

/**
 * The history an agent plays: its ancestors' messages up to each fork point, then its own,
 * starting at the most recent `clear` on that path; with `acrossClears`, the whole path back to
 * the root's first message (for an export).
 */
export async function readHistory(db: StoreDatabase, key: AgentKey, acrossClears: boolean): Promise<StoredMessage[]> {
  const stored: StoredMessage[] = [];
  for (const segment of (await pathSinceClear(db, key, { acrossClears })).path) {
    const rows = await messageRows(db, key.rootId, segment.agentId)
      .where('seq', '>=', segment.fromSeq)
      .where('seq', '<=', segment.toSeq)
      .orderBy('seq')
      .execute();
    for (const row of rows) stored.push(toStoredMessage(key.rootId, segment.agentId, row));
  }
  return stored;
}
