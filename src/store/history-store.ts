import { randomUUID } from 'node:crypto';
import { type Kysely, sql, type Transaction } from 'kysely';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import { startsExchange } from '../exchange/detect-exchanges.js';
import { type Message, messageSchema } from '../message/message.js';
import { type AgentKey, formatAgentId, parseAgentId } from './agent-id.js';
import type { DatabaseSchema } from './database-schema.js';
import { type OpenDatabase, openDatabase, type StoreLocation } from './open-database.js';

/** The agent's row, or `UNKNOWN_AGENT`. */
async function requireAgent(db: Kysely<DatabaseSchema> | Transaction<DatabaseSchema>, key: AgentKey) {
  const agent = await db
    .selectFrom('agents')
    .select(['last_seq', 'lineage', 'meta', 'fork_seq', 'parent_id'])
    .where('root_id', '=', key.rootId)
    .where('id', '=', key.id)
    .executeTakeFirst();
  if (!agent) throw new SlidingContextError('UNKNOWN_AGENT', `No agent ${formatAgentId(key)} in this store.`);
  return agent;
}

/** A message as stored: its place in its agent's history and when it was written. */
export interface StoredMessage {
  readonly agentId: string;
  readonly seq: number;
  readonly message: Message;
  readonly tokens: number | null;
  readonly createdAt: Date;
}

/** What `append` wrote. */
export interface AppendResult {
  readonly firstSeq: number;
  readonly lastSeq: number;
  /** True when the idempotency key had been seen: nothing new was written. */
  readonly duplicate: boolean;
}

/** One line of `agents`. */
export interface AgentSummary {
  readonly agentId: string;
  readonly parentId: string | null;
  readonly messages: number;
  readonly tokens: number;
  readonly lastActivity: Date;
}

/**
 * The full history of every agent, in PostgreSQL: appends in one transaction with a gapless
 * per-agent `seq`, forks that copy no rows, and replay that walks the lineage back to the last
 * `clear` and plays forward. Nothing is ever deleted; windows are views of this history.
 */
export class HistoryStore {
  readonly #database: OpenDatabase;

  private constructor(database: OpenDatabase) {
    this.#database = database;
  }

  /** Opens (and migrates) the store at a PGlite directory, in memory, or on a server. */
  static async open(location: StoreLocation): Promise<HistoryStore> {
    return new HistoryStore(await openDatabase(location));
  }

  get engine(): 'pglite' | 'postgres' {
    return this.#database.engine;
  }

  /** Creates a root agent and returns its id. */
  async createAgent(meta: Record<string, unknown> = {}): Promise<string> {
    const id = randomUUID();
    await this.#database.db
      .insertInto('agents')
      .values({ root_id: id, id, parent_id: null, fork_seq: null, lineage: '[]', last_seq: 0, meta: JSON.stringify(meta) })
      .execute();
    return id;
  }

  /**
   * Appends messages in one transaction. With `expectedLastSeq`, the append is optimistic and a
   * concurrent writer makes it fail with `STALE_WINDOW`; with `idempotencyKey`, a retry of the
   * same append writes nothing and returns the seqs first written.
   */
  async append(
    agentId: string,
    messages: readonly Message[],
    options: { readonly expectedLastSeq?: number; readonly idempotencyKey?: string; readonly tokens?: readonly (number | null)[] } = {},
  ): Promise<AppendResult> {
    const key = parseAgentId(agentId);
    const validated = messages.map((message, index) => {
      const result = messageSchema.safeParse(message);
      if (!result.success) throw new SlidingContextError('INVALID_MESSAGE', `messages[${index}] is not a valid message: ${result.error.issues[0]?.message ?? 'invalid'}.`);
      return result.data;
    });
    return this.#database.db.transaction().execute(async (transaction) => {
      if (options.idempotencyKey !== undefined) {
        // The key sits on the first row of its batch; a retry is the same batch.
        const seen = await transaction
          .selectFrom('messages')
          .select('seq')
          .where('root_id', '=', key.rootId)
          .where('agent_id', '=', key.id)
          .where('idempotency_key', '=', options.idempotencyKey)
          .executeTakeFirst();
        if (seen) return { firstSeq: seen.seq, lastSeq: seen.seq + validated.length - 1, duplicate: true };
      }
      let update = transaction
        .updateTable('agents')
        .set({ last_seq: sql`last_seq + ${validated.length}` })
        .where('root_id', '=', key.rootId)
        .where('id', '=', key.id);
      if (options.expectedLastSeq !== undefined) update = update.where('last_seq', '=', options.expectedLastSeq);
      const row = await update.returning('last_seq').executeTakeFirst();
      if (!row) {
        // Inside the transaction: PGlite has one connection, and this transaction holds it.
        await requireAgent(transaction, key);
        throw new SlidingContextError(
          'STALE_WINDOW',
          `Agent ${agentId} moved on past seq ${String(options.expectedLastSeq)}: another writer appended first; reload the window and try again.`,
        );
      }
      const firstSeq = row.last_seq - validated.length + 1;
      if (validated.length > 0) {
        await transaction
          .insertInto('messages')
          .values(
            validated.map((message, index) => ({
              root_id: key.rootId,
              agent_id: key.id,
              seq: firstSeq + index,
              kind: message.role === 'event' ? message.kind : message.role,
              body: JSON.stringify(message),
              tokens: options.tokens?.[index] ?? null,
              starts_exchange: startsExchange(message),
              // Only the first row carries the key: the unique index allows one per agent.
              idempotency_key: index === 0 ? (options.idempotencyKey ?? null) : null,
            })),
          )
          .execute();
      }
      return { firstSeq, lastSeq: row.last_seq, duplicate: false };
    });
  }

  /** Forks an agent at its current last seq: the child sees the parent's history up to there. */
  async fork(agentId: string, meta: Record<string, unknown> = {}): Promise<string> {
    const key = parseAgentId(agentId);
    const parent = await requireAgent(this.#database.db, key);
    const id = randomUUID();
    await this.#database.db
      .insertInto('agents')
      .values({
        root_id: key.rootId,
        id,
        parent_id: key.id,
        fork_seq: parent.last_seq,
        lineage: JSON.stringify([...parent.lineage, key.id]),
        last_seq: 0,
        meta: JSON.stringify({ ...parent.meta, ...meta }),
      })
      .execute();
    return formatAgentId({ rootId: key.rootId, id });
  }

  /**
   * The history an agent plays: its ancestors' messages up to each fork point, then its own,
   * starting at the most recent `clear` on that path. Events are included, in order, so that
   * `applyEvents` gives what the model sees.
   */
  async history(agentId: string): Promise<StoredMessage[]> {
    const key = parseAgentId(agentId);
    const leaf = await requireAgent(this.#database.db, key);
    const chain = await this.#database.db
      .selectFrom('agents')
      .select(['id', 'fork_seq', 'parent_id'])
      .where('root_id', '=', key.rootId)
      .where('id', 'in', [...leaf.lineage, key.id])
      .execute();
    const byId = new Map(chain.map((row) => [row.id, row]));
    // Walk back from the leaf: each agent is visible up to the seq its child forked at.
    const path: { id: string; upTo: number }[] = [];
    let upTo = leaf.last_seq;
    for (let current: string | null = key.id; current !== null;) {
      const agent = byId.get(current);
      if (!agent) break;
      path.push({ id: current, upTo });
      upTo = agent.fork_seq ?? 0;
      current = agent.parent_id;
    }
    const ranges: { id: string; from: number; upTo: number }[] = [];
    for (const { id, upTo: last } of path) {
      const clear = await this.#database.db
        .selectFrom('messages')
        .select(({ fn }) => fn.max('seq').as('seq'))
        .where('root_id', '=', key.rootId)
        .where('agent_id', '=', id)
        .where('kind', '=', 'clear')
        .where('seq', '<=', last)
        .executeTakeFirst();
      const clearSeq = clear?.seq ?? undefined;
      ranges.unshift({ id, from: clearSeq ?? 1, upTo: last });
      if (clearSeq !== undefined) break;
    }
    const stored: StoredMessage[] = [];
    for (const range of ranges) {
      const rows = await this.#database.db
        .selectFrom('messages')
        .select(['seq', 'body', 'tokens', 'created_at'])
        .where('root_id', '=', key.rootId)
        .where('agent_id', '=', range.id)
        .where('seq', '>=', range.from)
        .where('seq', '<=', range.upTo)
        .orderBy('seq')
        .execute();
      const agentIdOfRange = formatAgentId({ rootId: key.rootId, id: range.id });
      for (const row of rows) {
        stored.push({ agentId: agentIdOfRange, seq: row.seq, message: messageSchema.parse(row.body), tokens: row.tokens, createdAt: new Date(row.created_at) });
      }
    }
    return stored;
  }

  /** The settings stored with an agent (inherited by its forks). */
  async agentMeta(agentId: string): Promise<Record<string, unknown>> {
    return (await requireAgent(this.#database.db, parseAgentId(agentId))).meta;
  }

  /** Every agent, with its message count, stored tokens and last activity. */
  async listAgents(): Promise<AgentSummary[]> {
    const rows = await this.#database.db
      .selectFrom('agents')
      .leftJoin('messages', (join) => join.onRef('messages.root_id', '=', 'agents.root_id').onRef('messages.agent_id', '=', 'agents.id'))
      .select(({ fn }) => [
        'agents.root_id',
        'agents.id',
        'agents.parent_id',
        'agents.created_at',
        fn.count<string>('messages.seq').as('messages'),
        fn.coalesce(fn.sum<string>('messages.tokens'), sql<string>`0`).as('tokens'),
        fn.max('messages.created_at').as('last_message'),
      ])
      .groupBy(['agents.root_id', 'agents.id', 'agents.parent_id', 'agents.created_at'])
      .orderBy('agents.created_at')
      .execute();
    return rows.map((row) => ({
      agentId: formatAgentId({ rootId: row.root_id, id: row.id }),
      parentId: row.parent_id === null ? null : formatAgentId({ rootId: row.root_id, id: row.parent_id }),
      messages: Number(row.messages),
      tokens: Number(row.tokens),
      lastActivity: new Date(row.last_message ?? row.created_at),
    }));
  }

  /** Closes the database (and, for PGlite, writes it out and releases the directory lock). */
  close(): Promise<void> {
    return this.#database.close();
  }
}
