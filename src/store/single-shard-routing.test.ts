import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSingleShardRouting, knownFanOuts, readSqlLog } from '../testing/citus-routing.js';
import { createServerDatabase } from '../testing/server-database.js';
import { describeHistoryStoreContract } from './history-store.contract.js';
import { HistoryStore } from './history-store.js';
import { SQL_LOG_VARIABLE, sqlLogFromEnvironment } from './sql-log.js';

const directory = mkdtempSync(join(tmpdir(), 'sliding-context-sql-log-'));
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

/** Opens a store with the SQL log on, writing to `file`; the variable is unset again at once. */
async function openLogged(file: string, location: Parameters<typeof HistoryStore.open>[0]): Promise<HistoryStore> {
  process.env.SLIDING_CONTEXT_SQL_LOG = file;
  try {
    return await HistoryStore.open(location);
  } finally {
    delete process.env.SLIDING_CONTEXT_SQL_LOG;
  }
}

/** The reasons of the statements that fail the check. */
async function failures(statements: Parameters<typeof checkSingleShardRouting>[0], fanOuts = knownFanOuts()) {
  return (await checkSingleShardRouting(statements, fanOuts)).filter((routed) => routed.unexpected).map((routed) => routed.reasons);
}

describe('the routing check', () => {
  const routeOf = async (sql: string, parameters?: string[]) => {
    const [routed] = await checkSingleShardRouting([{ sql, parameters }], []);
    return routed;
  };

  it('routes a statement to one shard when each distributed table is filtered on root_id equality or joined on it', async () => {
    for (const sql of [
      'select seq from messages where root_id = $1 and agent_id = $2 and seq between $3 and $4',
      'select last_seq from agents where "root_id" = $1 and "id" = $2 for update',
      'select * from agents a join messages m on m.root_id = a.root_id and m.agent_id = a.id where a.root_id = $1',
      'select * from agents a left join messages m on m.root_id = a.root_id where a.root_id = $1::uuid',
      'select * from context_ranges where root_id in ($1) and (agent_id = $2 or agent_id = $3)',
      'update agents set last_seq = $1 where root_id = $2 and id = $3',
      'delete from tool_parts where root_id = \'00000000-0000-4000-8000-000000000000\'',
      'select * from messages m where m.root_id = $1 and exists (select 1 from tool_parts t where t.root_id = m.root_id and t.seq = m.seq)',
      // A CTE that updates or deletes goes with the statement: the tip append's guard.
      'with guarded as (update agents set last_seq = $1 where root_id = $2 and id = $3 and last_seq = $4 returning last_seq) select 1 / count(*) from guarded',
      'with gone as (delete from tool_parts where root_id = $1 returning seq) select count(*) from gone',
    ]) {
      expect(await routeOf(sql), sql).toMatchObject({ route: 'single-shard', reasons: [], unexpected: false });
    }
    // Rows of one insert go to one shard when their root_id is one value.
    const insert = 'insert into messages (root_id, agent_id, seq) values ($1, $2, $3), ($4, $5, $6)';
    expect(await routeOf(insert, ['r', 'a', '1', 'r', 'a', '2'])).toMatchObject({ route: 'single-shard', unexpected: false });
    expect(await routeOf(insert, ['r', 'a', '1', 'other', 'a', '2'])).toMatchObject({ route: 'multi-shard', unexpected: true });
    // Without the digests, two parameters may be two values.
    expect(await routeOf(insert)).toMatchObject({ route: 'multi-shard', reasons: ['inserts rows with 2 different root_id values'] });
  });

  it('fails any statement that reaches several shards, naming why', async () => {
    const cases: [string, string][] = [
      ['select * from messages where agent_id = $1', 'messages is not filtered on root_id equality'],
      ['select * from messages where root_id = $1 or agent_id = $2', 'messages is not filtered on root_id equality'],
      ['select * from messages where root_id <> $1', 'messages is not filtered on root_id equality'],
      ['select * from messages where root_id = any($1)', 'messages is not filtered on root_id equality'],
      ['select * from agents a join messages m on m.agent_id = a.id where a.root_id = $1', 'a and m are not joined on root_id'],
      ['select * from agents a left join messages m on m.root_id = a.root_id and a.root_id = $1', 'agents (as a) is not filtered on root_id equality'],
      ['select * from messages where root_id = $1 and seq in (select seq from tool_parts)', 'tool_parts is not filtered on root_id equality'],
      ['update messages set root_id = $1 where root_id = $2', 'updates root_id of messages, the distribution column (Citus refuses that)'],
      ['insert into messages (agent_id, seq) values ($1, $2)', 'inserts into messages without root_id'],
      ['select * from sessions where root_id = $1', 'sessions is in no placement (src/store/table-placement.ts): distributed or coordinator?'],
      ['create unique index by_key on messages (agent_id, idempotency_key)', 'a unique key (agent_id, idempotency_key) on messages without root_id (Citus refuses it)'],
      ['create table notes (root_id uuid, id uuid primary key)', 'notes is in no placement (src/store/table-placement.ts): distributed or coordinator?'],
      ['select * from agents, kysely_migration where agents.root_id = $1', 'reads a coordinator table together with a distributed one'],
      ['select * from messages where root_id = $1 and root_id = $2 union all select * from messages where agent_id = $3', 'messages is not filtered on root_id equality'],
      ['select * from messages where root_id = $1 or', 'does not parse'],
      ['with moved as (select * from messages) insert into messages (root_id, agent_id, seq) values ($1, $2, $3)', 'names 1 distributed table(s) where this check does not look'],
      ['with guarded as (update agents set last_seq = $1 where id = $2 returning last_seq) select 1 / count(*) from guarded', 'agents is not filtered on root_id equality'],
      ['with added as (insert into messages (root_id, agent_id, seq) values ($1, $2, $3) returning seq) select count(*) from added', 'inserts in a CTE, which Citus plans as a step of its own'],
      ['with guarded as (update agents set last_seq = $1 where root_id = $2 returning root_id) select * from messages where root_id = $3', 'filters on 2 different root_id values'],
    ];
    for (const [sql, reason] of cases) {
      const routed = await routeOf(sql);
      expect(routed?.unexpected, sql).toBe(true);
      expect(routed?.reasons.join('; '), sql).toContain(reason);
    }
  });

  it('accepts a fan-out only when it is a known one that joins on root_id alone', async () => {
    const listing = 'select agents.root_id, count(messages.seq) from agents left join messages on messages.root_id = agents.root_id and messages.agent_id = agents.id group by agents.root_id';
    expect(await failures([listing], [])).toEqual([['agents is not filtered on root_id equality', 'messages is not filtered on root_id equality']]);
    expect(await failures([listing], [{ sql: listing, reason: 'listing' }])).toEqual([]);
    const apart = 'select * from agents join messages on messages.agent_id = agents.id';
    expect(await failures([apart], [{ sql: apart, reason: 'listing' }])).toHaveLength(1);
    // The store's own fan-outs are colocated ones.
    for (const fanOut of knownFanOuts()) {
      expect(await checkSingleShardRouting([fanOut.sql]), fanOut.reason).toMatchObject([{ route: 'multi-shard', fansOut: true, colocated: true, fanOut: fanOut.reason, unexpected: false }]);
    }
  });

  it('takes schema changes and transaction control as they are, and the migrator bookkeeping as the coordinator\'s', async () => {
    const routed = await checkSingleShardRouting([
      'begin',
      'commit',
      'alter table "messages" add column "title" text',
      'create unique index "messages_idempotency" on "messages" ("root_id", "agent_id", "idempotency_key") where "idempotency_key" is not null',
      'select "name" from "kysely_migration" where "name" = $1',
      'select pg_advisory_lock(3853314791062309107)',
    ], []);
    expect(routed.map((entry) => [entry.route, entry.unexpected])).toEqual([
      ['coordinator', false],
      ['coordinator', false],
      ['schema-change', false],
      ['schema-change', false],
      ['coordinator', false],
      ['coordinator', false],
    ]);
  });
});

describe('the SQL log', () => {
  it('is off unless the variable names a file; on, one JSON line per statement, with digests and not the values', async () => {
    const file = join(directory, 'pglite.jsonl');
    expect([sqlLogFromEnvironment({}), sqlLogFromEnvironment({ [SQL_LOG_VARIABLE]: '' })]).toEqual([undefined, undefined]);
    const store = await openLogged(file, { memory: true });
    const agent = await store.createAgent();
    await store.append(agent, [{ role: 'user', content: 'a secret the log must not hold' }, { role: 'assistant', content: 'same here' }]);
    await store.close();
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('secret');
    expect(text).not.toContain(agent.split(':')[0]);
    const logged = readSqlLog(file);
    // On PGlite an append's writes after the lock go as one statement of CTEs, the messages' insert
    // last; PGlite is never Citus, and on a server (checked below) they stay one statement each.
    const combined = (entry: { readonly sql: string }) => entry.sql.startsWith('with write_0 as (');
    const insert = logged.find((entry) => combined(entry) && entry.sql.includes('insert into "messages"'));
    expect(insert?.parameters?.length).toBeGreaterThan(2);
    expect(await failures(logged.filter((entry) => !combined(entry)))).toEqual([]);
  });

  it('a file that cannot be written is refused at open, naming the variable and the file', async () => {
    const file = join(directory, 'missing', 'log.jsonl');
    await expect(openLogged(file, { memory: true })).rejects.toMatchObject({ code: 'OUTPUT_UNWRITABLE', message: expect.stringContaining(`${SQL_LOG_VARIABLE} names ${file}`) });
  });
});

const serverUrl = process.env.DATABASE_URL;
describe.skipIf(!serverUrl)('every statement the store issues on a server routes to one shard', () => {
  const file = join(directory, 'server.jsonl');
  const databases: Awaited<ReturnType<typeof createServerDatabase>>[] = [];
  const openOnServer = async () => {
    const database = await createServerDatabase(serverUrl ?? '', 'routing');
    databases.push(database);
    return openLogged(file, { databaseUrl: database.url });
  };
  afterAll(async () => {
    for (const database of databases) await database.drop();
  });

  describeHistoryStoreContract('PostgreSQL server, every statement logged', openOnServer);

  describe('the operations the contract does not make', () => {
    let store: HistoryStore;
    beforeAll(async () => {
      store = await openOnServer();
    });
    afterAll(async () => {
      await store.close();
    });

    it('names, exports, draws the timeline, summarizes and reads a window after a summary', async () => {
      const { agentId: root } = await store.createAgentWithMessages({ model: 'm' }, [{ role: 'user', content: 'q1' }, { role: 'assistant', content: 'a1' }], { name: 'root' });
      await store.renameAgent(root, 'renamed');
      const child = await store.fork(root, {}, { name: 'child' });
      await store.append(child, [{ role: 'event', kind: 'clear' }, { role: 'user', content: 'q2' }, { role: 'assistant', content: 'a2' }]);
      await store.recordRanges(child, [{ kind: 'summary', first: { agentId: child, seq: 2 }, last: { agentId: child, seq: 3 }, data: { text: 'q2 and a2' } }]);
      expect((await store.history(child, { acrossClears: true })).length).toBe(5);
      expect((await store.timeline(root)).forks).toHaveLength(1);
      expect((await store.timeline(child, { acrossClears: true })).entries).toHaveLength(5);
      expect(await store.ranges(child, { kind: 'summary', inherited: true })).toHaveLength(1);
      expect((await store.windowTail(child, { minTokens: 100, withFirstExchange: true, after: { agentId: child, seq: 3 } })).tail).toEqual([]);
      expect(await store.visible(child, [{ agentId: root, seq: 1 }, { agentId: child, seq: 2 }])).toEqual([false, true]);
      expect([await store.lastSeq(child), await store.agentMeta(child)]).toEqual([3, { model: 'm' }]);
      expect((await store.listAgents()).find((agent) => agent.agentId === child)).toMatchObject({ name: 'child', parentId: root });
    });
  });

  describe('the log', () => {
    it('holds every statement above, and each routes to one shard or is a documented exception', async () => {
      const logged = readSqlLog(file);
      const routed = await checkSingleShardRouting(logged);
      const counts = new Map<string, number>();
      for (const entry of routed) {
        const route = entry.fanOut === undefined ? entry.route : 'known fan-out';
        counts.set(route, (counts.get(route) ?? 0) + 1);
      }
      console.log(`${logged.length} statements logged, ${routed.length} distinct: ${[...counts].map(([route, count]) => `${route} ${count}`).join(', ')}`);
      expect(routed.filter((entry) => entry.unexpected).map((entry) => ({ sql: entry.sql, reasons: entry.reasons }))).toEqual([]);
      // Each kind of statement was there to be checked.
      const kinds = new Set(routed.map((entry) => entry.sql.split(' ')[0]?.toLowerCase()));
      expect([...kinds].sort()).toEqual(expect.arrayContaining(['alter', 'begin', 'commit', 'create', 'insert', 'select', 'update']));
      expect(new Set(routed.flatMap((entry) => entry.fanOut ?? []))).toEqual(new Set(knownFanOuts().map((fanOut) => fanOut.reason)));
      expect(routed.filter((entry) => entry.route === 'single-shard').length).toBeGreaterThan(20);
    });
  });
});
