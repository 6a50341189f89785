/** The ranges an agent's window evicted, readmitted or summarized: recorded, and read back. */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { isRecord } from '../message/is-record.js';
import { type AgentKey, formatAgentId, parseAgentId } from './agent-id.js';
import type { ContextRange, ContextRangeInput } from './history-store-types.js';
import { requireAgent, type StoreDatabase } from './stored-rows.js';
import { decodeStoredJson, encodeStoredJson } from './stored-json.js';

/** A range's data as its row stores it. */
function storedRangeBody(data: Record<string, unknown>): { body: string; body_escaped: boolean } {
  const stored = encodeStoredJson(data);
  return { body: stored.text, body_escaped: stored.escaped };
}

/** A range's data as read back. */
function rangeData(body: unknown, escaped: boolean): Record<string, unknown> {
  const data = decodeStoredJson(body, escaped);
  return isRecord(data) ? data : {};
}

/** The rows of the ranges, each as recorded by the agent `key`. */
export function rangeRows(key: AgentKey, ranges: readonly ContextRangeInput[]) {
  const idOf = (publicId: string) => parseAgentId(publicId).id;
  return ranges.map((range) => ({
    root_id: key.rootId,
    agent_id: key.id,
    id: randomUUID(),
    kind: range.kind,
    first_agent_id: idOf(range.first.agentId),
    first_seq: range.first.seq,
    last_agent_id: idOf(range.last.agentId),
    last_seq: range.last.seq,
    ...storedRangeBody(range.data ?? {}),
  }));
}

/** Inserts the ranges, each as recorded by the agent `key`. */
export async function insertRanges(db: StoreDatabase, key: AgentKey, ranges: readonly ContextRangeInput[]): Promise<void> {
  await db.insertInto('context_ranges').values(rangeRows(key, ranges)).execute();
}

/** The ranges recorded for an agent, oldest first (those recorded together by their seqs, then kind); `kind` keeps one kind only, or those listed. */
export async function readRanges(
  db: StoreDatabase,
  agentId: string,
  filter: { readonly kind?: string | readonly string[] | undefined; readonly inherited?: boolean | undefined } = {},
): Promise<ContextRange[]> {
  const key = parseAgentId(agentId);
  // With `inherited`, each ancestor's ranges recorded up to the fork that leads here, too.
  // A fork's time as the database keeps it (microseconds): a JS Date would round it down to the
  // millisecond, and drop a range recorded in the same millisecond before the fork.
  const scopes: { id: string; until?: string }[] = [{ id: key.id }];
  if (filter.inherited === true) {
    const { lineage } = await requireAgent(db, key);
    const path = [...lineage, key.id];
    if (path.length > 1) {
      const rows = await db.selectFrom('agents').select(['id', sql<string>`created_at::text`.as('created')]).where('root_id', '=', key.rootId).where('id', 'in', path).execute();
      const created = new Map(rows.map((row) => [row.id, row.created]));
      for (let index = path.length - 2; index >= 0; index--) {
        scopes.push({ id: path[index] as string, until: created.get(path[index + 1] as string) as string });
      }
    }
  }
  let query = db.selectFrom('context_ranges').selectAll().where('root_id', '=', key.rootId)
    .where((eb) => eb.or(scopes.map((scope) => eb.and([eb('agent_id', '=', scope.id), ...(scope.until === undefined ? [] : [eb('created_at', '<=', sql<Date>`${scope.until}::timestamptz`)])]))));
  if (typeof filter.kind === 'string') query = query.where('kind', '=', filter.kind);
  else if (filter.kind !== undefined) query = query.where('kind', 'in', filter.kind.length > 0 ? [...filter.kind] : ['']);
  // Ranges recorded together share their time: their seqs, then their kind, put them in one order on every engine.
  const rows = await query.orderBy('created_at').orderBy('first_seq').orderBy('last_seq').orderBy('kind').orderBy('id').execute();
  const publicId = (id: string | null, owner: string) => formatAgentId({ rootId: key.rootId, id: id ?? owner });
  return rows.map((row) => ({
    kind: row.kind,
    first: { agentId: publicId(row.first_agent_id, row.agent_id), seq: row.first_seq },
    last: { agentId: publicId(row.last_agent_id, row.agent_id), seq: row.last_seq },
    data: rangeData(row.body, row.body_escaped),
    createdAt: new Date(row.created_at),
  }));
}
