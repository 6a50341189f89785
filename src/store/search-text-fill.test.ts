import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, Migrator, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from '../message/message.js';
import type { DatabaseSchema } from './database-schema.js';
import { HistoryStore } from './history-store.js';
import { pgliteDialect } from './pglite-dialect.js';
import { migrationProvider } from './migrations.js';
import fc from 'fast-check';
import { mergedRanges, SearchTextFill } from './search-text-fill.js';

const unfilled = async (db: Kysely<DatabaseSchema>) => (await sql<{ seq: number }>`select seq from messages m
  where not exists (select 1 from message_search s where s.root_id = m.root_id and s.agent_id = m.agent_id and s.seq = m.seq) order by seq`.execute(db)).rows.map((row) => row.seq);

describe('mergedRanges', () => {
  it('property: covers exactly the seqs of each agent it was given, with no two ranges of one agent touching', () => {
    const agents = [{ rootId: 'r1', id: 'r1' }, { rootId: 'r1', id: 'a2' }, { rootId: 'r2', id: 'r2' }];
    const range = fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 5 }))
      .map(([agent, fromSeq, length]) => ({ key: agents[agent] ?? agents[0]!, fromSeq, toSeq: fromSeq + length }));
    fc.assert(fc.property(fc.array(range, { maxLength: 12 }), (ranges) => {
      const seqs = (list: typeof ranges) => new Set(list.flatMap((r) => Array.from({ length: r.toSeq - r.fromSeq + 1 }, (_, i) => `${r.key.id}:${String(r.fromSeq + i)}`)));
      const merged = mergedRanges(ranges);
      expect([...seqs(merged)].sort()).toEqual([...seqs(ranges)].sort());
      for (const [index, a] of merged.entries()) {
        for (const b of merged.slice(index + 1)) {
          if (a.key.id === b.key.id) expect(b.fromSeq > a.toSeq + 1 || a.fromSeq > b.toSeq + 1).toBe(true);
        }
      }
    }));
  });
});

describe('SearchTextFill', () => {
  let db: Kysely<DatabaseSchema> | undefined;
  afterEach(async () => {
    await db?.destroy();
    db = undefined;
  });

  async function migrated(): Promise<Kysely<DatabaseSchema>> {
    db = new Kysely<DatabaseSchema>({ dialect: pgliteDialect(await PGlite.create()) });
    expect((await new Migrator({ db, provider: migrationProvider }).migrateToLatest()).error).toBeUndefined();
    return db;
  }

  it('writes the search text of the rows written, after the write, once its timer fires, and only of the range it was given', async () => {
    const database = await migrated();
    const rootId = crypto.randomUUID();
    const row = (seq: number, content: string) => ({
      root_id: rootId, agent_id: rootId, seq, kind: 'user', body: JSON.stringify({ role: 'user', content }),
      tokens: null, count_target: null, count_method: null, count_exact: null, starts_exchange: true, idempotency_key: null,
    });
    await database.insertInto('messages').values([row(1, 'first qkappa1'), row(2, 'second qlambda2'), row(3, 'third qmu3')]).execute();
    const fill = new SearchTextFill({ db: database });
    fill.written({ rootId, id: rootId }, 1, 2);
    // Not in the write's path: nothing is filled yet.
    expect(await unfilled(database)).toEqual([1, 2, 3]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await unfilled(database)).toEqual([3]);
    fill.written({ rootId, id: rootId }, 3, 3);
    await fill.settled();
    expect(await unfilled(database)).toEqual([]);
    const found = await sql<{ seq: number }>`select seq from message_search where search @@ to_tsquery('english', 'qlambda2')`.execute(database);
    expect(found.rows).toEqual([{ seq: 2 }]);
    // Written again (a range queued twice): nothing more, no error.
    fill.written({ rootId, id: rootId }, 1, 3);
    await fill.settled();
    expect((await sql<{ rows: number }>`select count(*)::int as rows from message_search`.execute(database)).rows).toEqual([{ rows: 3 }]);
  });

  it('a fill that fails is left for a search to write; the next one runs', async () => {
    const database = await migrated();
    const fill = new SearchTextFill({ db: database });
    // Not a uuid: the update fails.
    fill.written({ rootId: 'not-a-uuid', id: 'not-a-uuid' }, 1, 1);
    await fill.settled();
    const rootId = crypto.randomUUID();
    await database.insertInto('messages').values({
      root_id: rootId, agent_id: rootId, seq: 1, kind: 'user', body: JSON.stringify({ role: 'user', content: 'x' }),
      tokens: null, count_target: null, count_method: null, count_exact: null, starts_exchange: true, idempotency_key: null,
    }).execute();
    fill.written({ rootId, id: rootId }, 1, 1);
    await fill.settled();
    expect(await unfilled(database)).toEqual([]);
  });
});

describe('HistoryStore search before and after the fill', () => {
  it('finds a long tool result as soon as it is stored, writing its search text then if its fill has not yet', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'sliding-context-search-fill-'));
    const log = join(directory, 'sql.jsonl');
    process.env.SLIDING_CONTEXT_SQL_LOG = log;
    const store = await HistoryStore.open({ memory: true }).finally(() => {
      delete process.env.SLIDING_CONTEXT_SQL_LOG;
    });
    const fills = () => readFileSync(log, 'utf8').split('\n').filter((line) => line.includes('insert into message_search')).length;
    try {
      const agentId = await store.createAgent();
      const output = `${'line of a long file listing '.repeat(2_000)} qnu4 end`;
      const messages: Message[] = [
        { role: 'user', content: 'read the file' },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: 'big.txt' } }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read_file', output: { type: 'text', value: output } }] },
      ];
      await store.append(agentId, messages);
      expect(fills()).toBe(0);
      const seqs = async () => (await store.searchHistory(agentId, 'qnu4')).hits.map((hit) => hit.seq);
      // The search writes the search text the fill has not written yet.
      expect(await seqs()).toEqual([3]);
      expect(fills()).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      // The queued fill ran after it, writing nothing again.
      expect(fills()).toBe(2);
      expect(await seqs()).toEqual([3]);
      expect(fills()).toBe(2);
      await store.append(agentId, [{ role: 'user', content: 'thanks' }]);
    } finally {
      await store.close();
      // Closing fills what is queued.
      expect(fills()).toBe(3);
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
