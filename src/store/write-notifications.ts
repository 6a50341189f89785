import { CompiledQuery } from 'kysely';
import type { OpenDatabase } from './open-database.js';
import type { StoreDatabase } from './stored-rows.js';

/** The PostgreSQL channel every store write is announced on, with the agent id as its payload. */
export const WRITES_CHANNEL = 'sliding_context_writes';

/**
 * The advisory locks (the two-key form, first key {@link LOCK_SPACE}) by which a server write
 * knows whether anyone listens: every listening connection holds {@link LISTENING} shared for as
 * long as it listens, and every write holds {@link ANNOUNCING} shared from just before it decides
 * whether to NOTIFY until it commits. A NOTIFY is not free: PostgreSQL takes one lock for every
 * notifying transaction from just before its commit until the commit is flushed, so notifying
 * commits cannot flush together (measured on loopback: 20 connections inserting a row a
 * transaction committed about half as often with one, and a lone writer's commit took about
 * 0.2 ms longer).
 */
const LOCK_SPACE = 0x5c0c_2a11;
const LISTENING = 1;
const ANNOUNCING = 2;

/**
 * The statements that announce a write to `agentId`, run last in its transaction. The first
 * holds {@link ANNOUNCING} shared until the commit; the second sends the NOTIFY unless it can take
 * {@link LISTENING} exclusively for a moment, that is when no connection listens (it lets go of it
 * at once; a write that cannot take it for any other reason notifies, which is never wrong).
 */
export function announcementOf(agentId: string): CompiledQuery[] {
  return [
    CompiledQuery.raw(`select pg_advisory_xact_lock_shared(${String(LOCK_SPACE)}, ${String(ANNOUNCING)})`),
    CompiledQuery.raw(
      `select pg_notify($1, $2) where case when pg_try_advisory_lock(${String(LOCK_SPACE)}, ${String(LISTENING)}) then not pg_advisory_unlock(${String(LOCK_SPACE)}, ${String(LISTENING)}) else true end`,
      [WRITES_CHANNEL, agentId],
    ),
  ];
}

/** How often a new listener looks again for the end of the writes it waits for, ms. */
const WAIT_POLL_MS = 5;

/** A connection's query, as a listener runs it: SQL text with its parameters, resolving to its rows. */
export type ListenerQuery = (text: string, parameters?: readonly unknown[]) => Promise<readonly Record<string, unknown>[]>;

/**
 * What a connection runs once it LISTENs, before its listener reads anything: it holds
 * {@link LISTENING} shared from then on, so every write that decides afterwards notifies; then it
 * waits for the writes that may have decided before (those holding {@link ANNOUNCING} now) to end,
 * so that what its listener reads next holds them. No committed write goes both unread and unheard.
 * It watches for their end in `pg_locks` rather than waiting in the lock's queue: a queued request
 * for it would hold up every other write behind a write left open.
 */
export async function afterListen(query: ListenerQuery): Promise<void> {
  await query(`select pg_advisory_lock_shared(${String(LOCK_SPACE)}, ${String(LISTENING)})`);
  // The two-key form of an advisory lock shows in pg_locks as classid, objid and objsubid 2, in its database.
  const holders = async () => new Set((await query(
    `select virtualtransaction from pg_locks where locktype = 'advisory' and classid = ${String(LOCK_SPACE)} and objid = ${String(ANNOUNCING)} and objsubid = 2
      and database = (select oid from pg_database where datname = current_database())`,
  )).map((row) => String(row.virtualtransaction)));
  let waiting = await holders();
  while (waiting.size > 0) {
    await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
    const now = await holders();
    waiting = new Set([...waiting].filter((transaction) => now.has(transaction)));
  }
}

/** Told the id of the agent a committed write changed (appended to, forked, ranged, renamed, created). */
export type WriteListener = (agentId: string) => void;

/**
 * Tells listeners of the writes to a store. On PGlite every write runs in this process (other
 * processes' go through the holder's socket), so listeners are called directly once a write
 * committed. On a server, writes may come from any process: each is announced with NOTIFY in
 * its own transaction (delivered on commit), and listeners hear them through one LISTEN
 * connection, opened with the first listener.
 */
export class WriteNotifications {
  readonly #database: OpenDatabase;
  readonly #listeners = new Set<WriteListener>();
  #listening: Promise<() => Promise<void>> | undefined;

  constructor(database: OpenDatabase) {
    this.#database = database;
  }

  /**
   * Announces a write from inside its transaction: on a server, a NOTIFY (when some connection
   * listens, see {@link announcementOf}) that PostgreSQL delivers to every listener when the
   * transaction commits (and drops if it rolls back), so that no committed write goes unannounced,
   * even if this process dies right after the commit. On PGlite, nothing: {@link committed} tells
   * the listeners.
   */
  async announce(transaction: StoreDatabase, agentId: string): Promise<void> {
    if (this.#database.listen === undefined) return;
    for (const statement of announcementOf(agentId)) await transaction.executeQuery(statement);
  }

  /** The statements a direct transaction ends with (see direct-transaction.ts): on a server only, as {@link announce}. */
  announcement(agentId: string): CompiledQuery[] | undefined {
    return this.#database.listen === undefined ? undefined : announcementOf(agentId);
  }

  /** Tells the listeners of a committed write on PGlite, where every write runs in this process. */
  committed(agentId: string): void {
    if (this.#database.listen === undefined) this.#tell(agentId);
  }

  /** Adds a listener; resolves once writes reach it, to a function that removes it. */
  async add(listener: WriteListener): Promise<() => Promise<void>> {
    this.#listeners.add(listener);
    const listen = this.#database.listen;
    if (listen !== undefined) {
      const listening = this.#listening ?? listen(WRITES_CHANNEL, (agentId) => {
        this.#tell(agentId);
      }, afterListen);
      this.#listening = listening;
      try {
        await listening;
      } catch (error) {
        // Not listening (the server refused or went away): the next listener tries again.
        this.#listeners.delete(listener);
        if (this.#listening === listening) this.#listening = undefined;
        throw error;
      }
    }
    return async () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) await this.stop();
    };
  }

  /** Closes the LISTEN connection, if one is open. */
  async stop(): Promise<void> {
    const listening = this.#listening;
    this.#listening = undefined;
    if (listening) await (await listening.catch(() => () => Promise.resolve()))();
  }

  #tell(agentId: string): void {
    for (const listener of this.#listeners) {
      try {
        listener(agentId);
      } catch {
        // A listener's failure is its own: the write is done, and the other listeners are told.
      }
    }
  }
}
