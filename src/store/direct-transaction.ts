/**
 * A guarded write run straight on the database's session, past Kysely's transaction machinery,
 * in as few round trips as the guard allows: the path of an append planned from the agent's tip,
 * taken on every turn of a proxied conversation. Measured a second apart on a server, Kysely's
 * `transaction()` spent 0.6–1 ms of a 2–3 ms append on its own steps, and each statement sent on
 * its own costs a round trip; this sends the whole transaction as one message where it can (see
 * {@link runGuardedWrite}), else `begin` with the guard, then the rest with the commit. Each
 * statement runs as the `EXECUTE` of a statement the session keeps prepared (prepared-statements.ts).
 */
import { CompiledQuery, type LogEvent } from 'kysely';
import type { Pool, PoolClient, QueryResult } from 'pg';
import { errorCode } from '../errors/error-code.js';
import { PreparedStatements } from './prepared-statements.js';
import type { PGliteSession } from './pglite-dialect.js';

/** Statements written together in one transaction: the guard first; when it gives no rows, nothing is written. */
export interface GuardedWrite {
  readonly guard: CompiledQuery;
  readonly rest: readonly CompiledQuery[];
}

/**
 * Runs a guarded write in one transaction; resolves to false, the transaction rolled back, when
 * its guard gave no rows. A statement that fails rolls it back and rejects with its error.
 * `announcement`, the statements that announce the write (see write-notifications.ts), runs
 * last, just before the commit.
 */
export type DirectTransaction = (write: GuardedWrite, announcement?: readonly CompiledQuery[]) => Promise<boolean>;

/** Kysely's `log` option, as the SQL log (see sql-log.ts) takes it. */
export type StatementLog = (event: LogEvent) => void;

/** A database session as a guarded write uses it. */
interface Session {
  /** Runs SQL text, statements separated by `;`, by the simple protocol; resolves to the last one's rows. */
  simple(text: string): Promise<readonly unknown[]>;
  /** Runs a statement with its parameters; resolves to its rows. */
  extended(query: CompiledQuery): Promise<readonly unknown[]>;
  /** The simple protocol's text that runs a statement, its values written in (see `PreparedStatements.textOf`); undefined when they cannot be. */
  textOf(query: CompiledQuery): Promise<string | undefined>;
}

/** PostgreSQL's `division_by_zero`: what a guard made to fail (see {@link failingWhenEmpty}) raises when it gives no rows. */
const GUARD_GAVE_NO_ROWS = '22012';

/**
 * The guard as a statement that fails when it gives no rows (a division by the rows it gave), so
 * that the rest can follow it in the same message: the failure stops the message there. Undefined
 * for a guard with a WITH of its own, which cannot be nested in another.
 */
function failingWhenEmpty(guard: CompiledQuery): CompiledQuery | undefined {
  if (/^\s*with\b/i.test(guard.sql)) return undefined;
  return CompiledQuery.raw(`with guarded as (${guard.sql}) select 1 / count(*) from guarded`, [...guard.parameters]);
}

/**
 * The statements go as few messages as their values allow. When every value can be written in as
 * a literal (see inline-parameters.ts) and the guard can be made to fail on no rows, all of it is
 * one simple-protocol message: `begin`, the guard, the rest, the announcement and `commit`; the rest
 * then must not divide by zero, which would read as the guard's stop. Otherwise `begin` and the
 * guard go first, then the rest with the commit, a statement whose values cannot be inlined on its
 * own with its parameters. A statement is sent as the `EXECUTE` of its prepared statement
 * where the session keeps it (see prepared-statements.ts). The SQL log gets each statement as
 * Kysely compiled it, its values as parameters.
 */
async function runGuardedWrite(
  session: Session,
  write: GuardedWrite,
  announcement: readonly CompiledQuery[] | undefined,
  log: StatementLog | undefined,
): Promise<boolean> {
  const rest = announcement ? [...write.rest, ...announcement] : write.rest;
  const logged = (query: CompiledQuery) => {
    log?.({ level: 'query', query, queryDurationMillis: 0 });
    return query;
  };
  // Made before the transaction begins: a statement is prepared outside it.
  const restTexts: (string | undefined)[] = [];
  for (const query of rest) restTexts.push(await session.textOf(query));
  const checkedGuard = failingWhenEmpty(write.guard);
  const checkedText = checkedGuard && (await session.textOf(checkedGuard));
  try {
    if (checkedGuard && checkedText !== undefined && restTexts.every((text) => text !== undefined)) {
      for (const query of [checkedGuard, ...rest]) logged(query);
      try {
        await session.simple(['begin', checkedText, ...restTexts, 'commit'].join('; '));
        return true;
      } catch (error) {
        if (errorCode(error) !== GUARD_GAVE_NO_ROWS) throw error;
        await session.simple('rollback');
        return false;
      }
    }
    const guard = await session.textOf(logged(write.guard));
    const guarded = guard === undefined ? (await session.simple('begin'), await session.extended(write.guard)) : await session.simple(`begin; ${guard}`);
    if (guarded.length === 0) {
      await session.simple('rollback');
      return false;
    }
    const commit: string[] = [];
    for (const [index, query] of rest.entries()) {
      logged(query);
      const inlined = restTexts[index];
      if (inlined !== undefined) commit.push(inlined);
      else {
        // Sent in order: what was gathered first, then this one with its parameters.
        if (commit.length > 0) await session.simple(commit.splice(0).join('; '));
        await session.extended(query);
      }
    }
    await session.simple([...commit, 'commit'].join('; '));
    return true;
  } catch (error) {
    await session.simple('rollback').catch(() => undefined);
    throw error;
  }
}

/** Direct transactions on PGlite's one session, queued with Kysely's use of it. */
export function pgliteDirectTransaction(session: PGliteSession, log?: StatementLog): DirectTransaction {
  const { client } = session;
  const prepared = new PreparedStatements();
  const simple = async (text: string) => (await client.exec(text)).at(-1)?.rows ?? [];
  const pglite: Session = {
    simple,
    extended: async (query) => (await client.query(query.sql, [...query.parameters])).rows,
    textOf: (query) => prepared.textOf(query, simple),
  };
  return async (write, announcement) => {
    const release = await session.acquire();
    try {
      return await runGuardedWrite(pglite, write, announcement, log);
    } finally {
      release();
    }
  };
}

/** The rows of `pg`'s result: of the last statement, when the text held several. */
function lastRows(result: QueryResult | QueryResult[]): readonly unknown[] {
  return (Array.isArray(result) ? result.at(-1) : result)?.rows ?? [];
}

/** Direct transactions on connections of a server's pool. */
export function serverDirectTransaction(pool: Pool, log?: StatementLog): DirectTransaction {
  // Each connection's own: a statement is prepared in the session that runs it.
  const preparedOn = new WeakMap<PoolClient, PreparedStatements>();
  return async (write, announcement) => {
    const client = await pool.connect();
    let prepared = preparedOn.get(client);
    if (prepared === undefined) {
      prepared = new PreparedStatements();
      preparedOn.set(client, prepared);
    }
    const statements = prepared;
    const simple = async (text: string) => lastRows(await client.query(text) as QueryResult | QueryResult[]);
    const server: Session = {
      simple,
      extended: async (query) => (await client.query<Record<string, unknown>>(query.sql, [...query.parameters])).rows,
      textOf: (query) => statements.textOf(query, simple),
    };
    try {
      const written = await runGuardedWrite(server, write, announcement, log);
      client.release();
      return written;
    } catch (error) {
      // After a failure the connection is closed, not given back: its state is not known.
      client.release(error instanceof Error ? error : true);
      throw error;
    }
  };
}
