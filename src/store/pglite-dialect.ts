import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
} from 'kysely';
import { SlidingContextError } from '../errors/sliding-context-error.js';

/**
 * PGlite's one session, used by one caller at a time: a second logical connection would
 * interleave its statements with an open transaction. Kysely's connections and the store's
 * direct transactions (see direct-transaction.ts) queue here.
 */
export class PGliteSession {
  readonly client: PGlite;
  #queue: Promise<void> = Promise.resolve();

  constructor(client: PGlite) {
    this.client = client;
  }

  /** Waits for the previous user to release the session; resolves to the function that releases it. */
  async acquire(): Promise<() => void> {
    let release: () => void = () => undefined;
    const previous = this.#queue;
    this.#queue = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    return release;
  }
}

class PGliteDriver implements Driver {
  readonly #session: PGliteSession;
  readonly #client: PGlite;

  constructor(session: PGliteSession) {
    this.#session = session;
    this.#client = session.client;
  }

  async init(): Promise<void> {
    await this.#client.waitReady;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new PGliteConnection(this.#client, await this.#session.acquire());
  }

  // No parameters: the simple protocol, one call into PGlite where a query with parameters takes six.
  async beginTransaction(): Promise<void> {
    await this.#client.exec('begin');
  }

  async commitTransaction(): Promise<void> {
    await this.#client.exec('commit');
  }

  async rollbackTransaction(): Promise<void> {
    await this.#client.exec('rollback');
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    if (connection instanceof PGliteConnection) connection.release();
    return Promise.resolve();
  }

  async destroy(): Promise<void> {
    await this.#client.close();
  }
}

class PGliteConnection implements DatabaseConnection {
  readonly #client: PGlite;
  readonly release: () => void;

  constructor(client: PGlite, release: () => void) {
    this.#client = client;
    this.release = release;
  }

  async executeQuery<Row>(query: CompiledQuery): Promise<QueryResult<Row>> {
    const result = await this.#client.query<Row>(query.sql, [...query.parameters]);
    const affected = result.affectedRows === undefined ? {} : { numAffectedRows: BigInt(result.affectedRows) };
    return { rows: result.rows, ...affected };
  }

  /** PGlite answers whole results; nothing here streams. */
  streamQuery<Row>(): AsyncIterableIterator<QueryResult<Row>> {
    throw new SlidingContextError('NOT_SUPPORTED', 'PGlite does not stream query results.');
  }
}

/** A Kysely dialect for an embedded PGlite (`session`, or a client's own): PostgreSQL's SQL, one session at a time. */
export function pgliteDialect(session: PGliteSession | PGlite): Dialect {
  const shared = session instanceof PGliteSession ? session : new PGliteSession(session);
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new PGliteDriver(shared),
    createQueryCompiler: () => new PostgresQueryCompiler(),
    createIntrospector: (db: Kysely<unknown>) => new PostgresIntrospector(db),
  };
}
