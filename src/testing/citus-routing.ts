/**
 * The check that every statement the store issues can run on Citus routed to one shard: each is
 * parsed by PostgreSQL's own parser (libpg-query) and routed by `statementRoute`. The only
 * statements allowed elsewhere are the documented ones: schema changes (on every shard), and
 * the known fan-outs, which must still join on `root_id` only. See CITUS.md.
 */
import { readFileSync } from 'node:fs';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import { fingerprintSync, loadModule, parseSync } from 'libpg-query';
import { agentListingReads } from '../store/agents.js';
import type { DatabaseSchema } from '../store/database-schema.js';
import { prefixDigestLookup } from '../store/find-stored-prefix.js';
import { MIGRATION_BACKFILLS } from '../store/migrations.js';
import { prefixBackfillAgents } from '../store/prefix-digest-backfill.js';
import { type StatementRoute, statementRoute } from './statement-route.js';

/** A statement as the SQL log writes it (`SLIDING_CONTEXT_SQL_LOG`): its text and its parameters' digests. */
export interface LoggedStatement {
  readonly sql: string;
  readonly parameters?: readonly string[] | undefined;
}

/** A statement that is known to reach every shard, and why that is right. */
export interface KnownFanOut {
  readonly sql: string;
  readonly reason: string;
}

/** A statement with its route; `fanOut` names the known fan-out it is; `unexpected` when it fails the check. */
export interface RoutedStatement extends StatementRoute {
  readonly sql: string;
  readonly fanOut: string | undefined;
  readonly unexpected: boolean;
}

/** Reads a SQL log: one JSON line per statement. */
export function readSqlLog(path: string): LoggedStatement[] {
  return readFileSync(path, 'utf8').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as LoggedStatement);
}

/** Compiles queries without a database: the SQL the store's builders produce. */
const compiler = new Kysely<DatabaseSchema>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/**
 * The statements of the store that reach every shard by design: the `agents` listing, which
 * covers every agent tree, the prefix index's lookup by digest, which looks for a request's
 * conversation in every tree, and the backfills of a migration, which run once over all rows.
 */
export function knownFanOuts(): KnownFanOut[] {
  const listing = agentListingReads(compiler);
  return [
    ...Object.entries(listing).map(([name, query]) => ({ sql: query.compile().sql, reason: `agents listing (${name}): every agent tree, each shard answers for its own` })),
    { sql: prefixDigestLookup(compiler, ['digest']).compile().sql, reason: 'prefix index lookup: the digests of a request in every agent tree, each shard answers from its index on digest' },
    ...Object.entries(MIGRATION_BACKFILLS).map(([name, query]) => ({ sql: query.compile(compiler).sql, reason: `migration backfill (${name}): once, over every row` })),
    { sql: prefixBackfillAgents(compiler).compile().sql, reason: 'migration backfill (prefix digests): every agent, once, to replay each tree on its shard' },
  ];
}

/** A key under which two executions of one statement with the same pattern of equal parameters are one. */
function statementKey(statement: LoggedStatement): string {
  const first = new Map<string, number>();
  const pattern = (statement.parameters ?? []).map((digest, index) => {
    if (!first.has(digest)) first.set(digest, index);
    return first.get(digest);
  });
  return `${statement.sql}\u0000${pattern.join(',')}`;
}

/**
 * Routes each distinct statement (a string is one without parameter digests) and says which fail
 * the check: a statement not routed to one shard and not a documented exception, a schema change
 * Citus refuses, a known fan-out that joins on anything but `root_id`, or one that does not parse.
 */
export async function checkSingleShardRouting(statements: readonly (string | LoggedStatement)[], fanOuts: readonly KnownFanOut[] = knownFanOuts()): Promise<RoutedStatement[]> {
  await loadModule();
  const known = new Map(fanOuts.map((fanOut) => [fingerprintSync(fanOut.sql), fanOut.reason]));
  const distinct = new Map<string, LoggedStatement>();
  for (const statement of statements) {
    const logged = typeof statement === 'string' ? { sql: statement } : statement;
    distinct.set(statementKey(logged), logged);
  }
  const routed: RoutedStatement[] = [];
  for (const { sql, parameters } of distinct.values()) {
    let stmts: Record<string, unknown>[];
    try {
      stmts = (parseSync(sql).stmts ?? []).map((raw) => raw.stmt as unknown as Record<string, unknown>);
    } catch (error) {
      routed.push({ sql, route: 'multi-shard', reasons: [`does not parse: ${error instanceof Error ? error.message : String(error)}`], colocated: false, fansOut: false, fanOut: undefined, unexpected: true });
      continue;
    }
    const fanOut = known.get(fingerprintSync(sql));
    for (const stmt of stmts) {
      const route = statementRoute(stmt, parameters);
      const accepted = route.reasons.length === 0 || (fanOut !== undefined && route.fansOut);
      routed.push({ sql, ...route, fanOut: route.fansOut ? fanOut : undefined, unexpected: !accepted });
    }
  }
  return routed;
}
