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
 * One connection at a time: PGlite is a single session, so a second logical connection would
 * interleave its statements with an open transaction. Acquiring waits for the previous release.
 */
class PGliteDriver implements Driver {
  readonly #client: PGlite;
  #queue: Promise<void> = Promise.resolve();

  constructor(client: PGlite) {
    this.#client = client;
  }

  async init(): Promise<void> {
    await this.#client.waitReady;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    let release: () => void = () => undefined;
    const previous = this.#queue;
    this.#queue = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    return new PGliteConnection(this.#client, release);
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

/** A Kysely dialect for an embedded PGlite: PostgreSQL's SQL, one session at a time. */
export function pgliteDialect(client: PGlite): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new PGliteDriver(client),
    createQueryCompiler: () => new PostgresQueryCompiler(),
    createIntrospector: (db: Kysely<unknown>) => new PostgresIntrospector(db),
  };
}
