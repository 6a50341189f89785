/** Reading stored rows back: a message row as the store gives it out, and an agent's own row. */
import type { Kysely, Selectable } from 'kysely';
import { sql } from 'kysely';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import { isRecord } from '../message/is-record.js';
import { messageSchema } from '../message/message.js';
import { type AgentKey, formatAgentId } from './agent-id.js';
import type { DatabaseSchema, MessagesTable } from './database-schema.js';
import type { StoredMessage } from './history-store-types.js';
import { decodeStoredJson } from './stored-json.js';

/** The store's database, or a transaction on it. */
export type StoreDatabase = Kysely<DatabaseSchema>;

/** A stored row as the store gives it out. */
export function toStoredMessage(
  rootId: string,
  agentId: string,
  row: Pick<Selectable<MessagesTable>, 'seq' | 'tokens' | 'count_target' | 'count_method' | 'count_exact' | 'created_at' | 'body_escaped'> & { readonly body: string },
): StoredMessage {
  return {
    agentId: formatAgentId({ rootId, id: agentId }),
    seq: row.seq,
    message: messageSchema.parse(decodeStoredJson(JSON.parse(row.body), row.body_escaped)),
    count:
      row.tokens === null || row.count_target === null
        ? null
        : { tokens: row.tokens, exact: row.count_exact === true, method: row.count_method ?? 'unknown', target: row.count_target },
    createdAt: new Date(row.created_at),
  };
}

/** The agent's row (its meta decoded), or `UNKNOWN_AGENT`. */
export async function requireAgent(db: StoreDatabase, key: AgentKey) {
  const agent = await db
    .selectFrom('agents')
    .select(['last_seq', 'lineage', 'meta', 'meta_escaped', 'fork_seq', 'parent_id', 'prefix_digest', 'prefix_length'])
    .where('root_id', '=', key.rootId)
    .where('id', '=', key.id)
    .executeTakeFirst();
  if (!agent) throw unknownAgent(key);
  const meta = decodeStoredJson(agent.meta, agent.meta_escaped);
  return { ...agent, meta: isRecord(meta) ? meta : {} };
}

export function unknownAgent(key: AgentKey): SlidingContextError {
  return new SlidingContextError('UNKNOWN_AGENT', `No agent ${formatAgentId(key)} in this store.`);
}

/** Rows of one agent of a tree, every column a stored message needs; `db` may be a transaction. */
export function messageRows(db: StoreDatabase, rootId: string, agentId: string) {
  return db
    .selectFrom('messages')
    // The body as text, parsed here: several times faster than PGlite's own jsonb decoding.
    .select(['seq', sql<string>`body::text`.as('body'), 'body_escaped', 'tokens', 'count_target', 'count_method', 'count_exact', 'created_at', 'starts_exchange'])
    .where('root_id', '=', rootId)
    .where('agent_id', '=', agentId);
}

/** {@link messageRows} without events: the messages a model is sent. */
export function modelMessageRows(db: StoreDatabase, rootId: string, agentId: string) {
  return messageRows(db, rootId, agentId).where('kind', 'in', ['system', 'user', 'assistant', 'tool']);
}
