import type { CommitNotice } from './direct-transaction.js';
import { sql } from 'kysely';
import type { OpenDatabase } from './open-database.js';
import type { StoreDatabase } from './stored-rows.js';

/** The PostgreSQL channel every store write is announced on, with the agent id as its payload. */
export const WRITES_CHANNEL = 'sliding_context_writes';

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
   * Announces a write from inside its transaction: on a server, a NOTIFY that PostgreSQL
   * delivers to every listener when the transaction commits (and drops if it rolls back), so
   * that no committed write goes unannounced, even if this process dies right after the commit.
   * On PGlite, nothing: {@link committed} tells the listeners.
   */
  async announce(transaction: StoreDatabase, agentId: string): Promise<void> {
    if (this.#database.listen === undefined) return;
    await sql`select pg_notify(${WRITES_CHANNEL}, ${agentId})`.execute(transaction);
  }

  /** The NOTIFY a direct transaction sends with its commit (see direct-transaction.ts): on a server only, as {@link announce}. */
  notice(agentId: string): CommitNotice | undefined {
    return this.#database.listen === undefined ? undefined : { channel: WRITES_CHANNEL, payload: agentId };
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
      this.#listening ??= listen(WRITES_CHANNEL, (agentId) => {
        this.#tell(agentId);
      });
      await this.#listening;
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
