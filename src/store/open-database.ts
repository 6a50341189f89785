import { chmodSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import { errorCode } from '../errors/error-code.js';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import { isRecord } from '../message/is-record.js';
import type { DatabaseSchema } from './database-schema.js';
import { parseDatabaseUrl } from './database-url.js';
import { checkStoreDirectory } from './check-store-directory.js';
import { lockDirectory } from './directory-lock.js';
import { makeDirectories } from './make-directories.js';
import { latestMigration, migrationProvider } from './migrations.js';
import { pgliteDialect, PGliteSession } from './pglite-dialect.js';
import { type DirectTransaction, pgliteDirectTransaction, serverDirectTransaction } from './direct-transaction.js';
import { copyTemplate, pgliteTemplate, templateArchive } from './pglite-template.js';
import { restrictToOwner } from './restrict-to-owner.js';
import { canServe, storeSocketPath } from './serve-store.js';
import { dropSavedViews } from './saved-views.js';
import { sqlLogFromEnvironment } from './sql-log.js';
import type { ListenerQuery } from './write-notifications.js';

/**
 * Where the store lives: a PGlite directory (the default) or a PostgreSQL server. A directory or
 * a database with `create: false` must hold a store already (read-only commands create nothing).
 * On a server, `connections` is the most the store's pool opens at once (default {@link DEFAULT_SERVER_CONNECTIONS}).
 */
export type StoreLocation =
  | { readonly dataDir: string; readonly create?: boolean }
  | { readonly databaseUrl: string; readonly create?: boolean; readonly connections?: number | undefined }
  | { readonly memory: true };

/**
 * Checks what `HistoryStore.open` was given: `{ dataDir }` naming a directory, `{ databaseUrl }`
 * or `{ memory: true }`.
 * @throws SlidingContextError `INVALID_OPTION` naming the field
 */
export function requireStoreLocation(location: unknown): asserts location is StoreLocation {
  const refuse = (problem: string) => new SlidingContextError('INVALID_OPTION', `HistoryStore.open: ${problem}; give { dataDir: "<directory>" }, { databaseUrl: "postgres://…" } or { memory: true }.`);
  if (!isRecord(location)) throw refuse(`the location is ${location === undefined ? 'missing' : location === null ? 'null' : `a ${typeof location}`}`);
  if ('databaseUrl' in location) {
    if (typeof location.databaseUrl !== 'string') throw refuse(`databaseUrl is ${typeof location.databaseUrl}, not a string`);
  } else if ('dataDir' in location) {
    if (typeof location.dataDir !== 'string' || location.dataDir.trim() === '') throw refuse(`dataDir is ${JSON.stringify(location.dataDir)}, not a directory`);
  } else if (location.memory !== true) {
    throw refuse('the location names no store');
  }
}

/** The server connections a store opens at most, unless its location says otherwise: enough for one agent loop or command. */
export const DEFAULT_SERVER_CONNECTIONS = 4;

/** What a listening connection runs once it LISTENs (see write-notifications.ts), given that connection's query. */
type AfterListen = (query: ListenerQuery) => Promise<void>;

/** The open database and how to close it. */
export interface OpenDatabase {
  readonly db: Kysely<DatabaseSchema>;
  readonly engine: 'pglite' | 'postgres';
  /** The PGlite directory, when the store is one. */
  readonly dataDir: string | undefined;
  /**
   * On a server: LISTENs on `channel` over a connection of its own, calling `onPayload` with each
   * notification's payload, then runs `afterListen` with that connection's query; resolves once
   * both are done, to a function that closes the connection.
   */
  readonly listen?: ((channel: string, onPayload: (payload: string) => void, afterListen: AfterListen) => Promise<() => Promise<void>>) | undefined;
  /** Runs compiled statements in one transaction, past Kysely's transaction machinery (see direct-transaction.ts). */
  readonly directTransaction: DirectTransaction;
  close(): Promise<void>;
}

/**
 * PGlite's settings beyond its defaults. Its buffer pool is PostgreSQL's 128 MB, and PGlite touches
 * all of it when it starts: 100 MB of memory and a fifth of a short command's time. Its files
 * are read through the operating system's cache anyway, so a smaller pool costs little.
 */
const PGLITE_SETTINGS = ['-c', 'shared_buffers=32MB'];

/**
 * Whether the database holds a store, and one with the newest migration applied (`current`) or
 * an older one (`behind`); `none` when it holds no store yet. One indexed read instead of the
 * migrator's checks.
 */
async function storeSchemaState(db: Kysely<DatabaseSchema>): Promise<'current' | 'behind' | 'none'> {
  try {
    const applied = await db.selectFrom('kysely_migration').select('name').where('name', '=', latestMigration).executeTakeFirst();
    return applied === undefined ? 'behind' : 'current';
  } catch (error) {
    // No migrations table yet (undefined_table): a new store. Anything else, such as a directory
    // PGlite cannot start on, is no reason to drop the saved views: it is the store's failure.
    if (errorCode(error) === '42P01') return 'none';
    throw error;
  }
}

/** The refusal of a read-only command on a server database that holds no store: nothing is created there. */
function noServerStore(databaseUrl: string): SlidingContextError {
  const target = parseDatabaseUrl(databaseUrl);
  const database = target.database === undefined ? 'the database' : `the database ${target.database}`;
  return new SlidingContextError('NO_STORE', `There is no store in ${database} at ${target.server} (it holds no sliding-context tables); check --database-url (or DATABASE_URL), or create one with \`sliding-context import\` or \`chat\`.`);
}

/**
 * Locks a PGlite directory after checking it is a store, or nothing yet when `create`; checked
 * again under the lock, since another process may have written there meanwhile. Releasing it
 * removes the socket the store was served on (see serve-store.ts), then the lock.
 */
function lockDataDir(dataDir: string, create: boolean): { release: () => void; isNew: boolean } {
  const state = checkStoreDirectory(dataDir, create);
  // On a file, mkdir fails as it did before: nothing is written beside it.
  if (state === 'missing' || state === 'not-a-directory') makeDirectories(dataDir, 0o700);
  // The store serves the directory once open (see history-store.ts): the lock says so from the start.
  const unlock = lockDirectory(dataDir, { serves: canServe(dataDir) });
  // The socket the store was served on goes just before the lock (not after: then it may be the next holder's).
  const release = () => {
    try {
      rmSync(storeSocketPath(dataDir), { force: true });
    } finally {
      unlock();
    }
  };
  try {
    const locked = checkStoreDirectory(dataDir, create);
    // Group and others lose their bits; the owner's are left as they are (a folder its owner made
    // read-only stays so, and the open then fails as it should).
    const { mode } = statSync(dataDir);
    if ((mode & 0o077) !== 0) chmodSync(dataDir, mode & 0o7700);
    return { release, isNew: locked === 'missing' || locked === 'empty' };
  } catch (error) {
    release();
    throw error;
  }
}

/**
 * PGlite creates a new store's files 0666 and folders 0755 (later ones follow PostgreSQL's 0600):
 * when its marker file shows that, everything is taken from group and others at once.
 */
function restrictNewStore(dataDir: string, copied: boolean): void {
  const marker = statSync(join(dataDir, 'PG_VERSION'), { throwIfNoEntry: false });
  // A store copied from the template gets PGlite's cache files (0644) when it first starts.
  if (copied || marker === undefined || (marker.mode & 0o077) !== 0) restrictToOwner(dataDir);
}

/**
 * Opens the store's database with Kysely (PGlite in a locked directory, in memory, or a server
 * through `pg`) and runs pending migrations. Kysely's migrator takes an advisory lock, so two
 * processes starting together on a server migrate once. With `SLIDING_CONTEXT_SQL_LOG` set,
 * every statement is logged there (see sql-log.ts).
 */
export async function openDatabase(location: StoreLocation): Promise<OpenDatabase> {
  let db: Kysely<DatabaseSchema>;
  let release: () => void = () => undefined;
  let engine: OpenDatabase['engine'];
  let listen: OpenDatabase['listen'];
  let directTransaction: DirectTransaction;
  let copied = false;
  const log = sqlLogFromEnvironment();
  if ('databaseUrl' in location) {
    // Loaded only for a server: the embedded default starts faster without it.
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({ connectionString: location.databaseUrl, max: location.connections ?? DEFAULT_SERVER_CONNECTIONS });
    db = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }), ...(log && { log }) });
    directTransaction = serverDirectTransaction(pool, log);
    engine = 'postgres';
    const { databaseUrl } = location;
    listen = async (channel, onPayload, afterListen) => {
      const client = new pg.Client({ connectionString: databaseUrl });
      // A lost connection only stops the notifications; the store's own queries use the pool.
      client.on('error', () => undefined);
      client.on('notification', (message) => {
        if (message.channel === channel && message.payload !== undefined) onPayload(message.payload);
      });
      await client.connect();
      try {
        await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
        await afterListen(async (text, parameters) => (await client.query<Record<string, unknown>>(text, parameters ? [...parameters] : undefined)).rows);
      } catch (error) {
        await client.end().catch(() => undefined);
        throw error;
      }
      return () => client.end().catch(() => undefined);
    };
  } else {
    const locked = 'dataDir' in location ? lockDataDir(location.dataDir, location.create ?? true) : undefined;
    if (locked) release = locked.release;
    try {
      const startParams = [...PGlite.defaultStartParams, ...PGLITE_SETTINGS];
      // A new store starts as a copy of the template, when there is one: PGlite's initdb takes seconds.
      let template = locked?.isNew !== false ? await pgliteTemplate(startParams) : undefined;
      if (template && 'dataDir' in location) {
        copied = copyTemplate(template, location.dataDir);
        if (copied) dropSavedViews(location.dataDir);
        else template = undefined;
      }
      const options = { startParams, ...(template && !('dataDir' in location) && { loadDataDir: templateArchive(template) }) };
      const client = 'dataDir' in location ? new PGlite(location.dataDir, options) : new PGlite(options);
      const session = new PGliteSession(client);
      db = new Kysely<DatabaseSchema>({ dialect: pgliteDialect(session), ...(log && { log }) });
      directTransaction = pgliteDirectTransaction(session, log);
    } catch (error) {
      release();
      throw error;
    }
    engine = 'pglite';
  }
  const close = async () => {
    try {
      // A checkpoint writes PGlite's pages out before it closes.
      if (engine === 'pglite') await sql`checkpoint`.execute(db).catch(() => undefined);
      await db.destroy();
      if (dataDir !== undefined) restrictToOwner(dataDir);
    } finally {
      release();
    }
  };
  const dataDir = 'dataDir' in location ? location.dataDir : undefined;
  try {
    const state = await storeSchemaState(db);
    if (state === 'none' && 'databaseUrl' in location && location.create === false) throw noServerStore(location.databaseUrl);
    if (state !== 'current') {
      // Views saved under an older schema may not hold what the new one gives.
      if (dataDir !== undefined) dropSavedViews(dataDir);
      const { error } = await new Migrator({ db, provider: migrationProvider }).migrateToLatest();
      if (error) throw error instanceof Error ? error : new SlidingContextError('MIGRATION_FAILED', 'A migration of the store failed.', { cause: error });
    }
    // After the first query: PGlite creates a new store's files then, not when constructed.
    if (dataDir !== undefined) restrictNewStore(dataDir, copied);
  } catch (error) {
    await close();
    throw error;
  }
  return { db, engine, dataDir, ...(listen && { listen }), directTransaction, close };
}
