import { CompiledQuery, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServerDatabase } from '../testing/server-database.js';
import type { GuardedWrite } from './direct-transaction.js';
import { openDatabase, type OpenDatabase } from './open-database.js';

const insert = (id: number, note: unknown = 'kept') => CompiledQuery.raw('insert into direct_rows (id, note) values ($1, $2)', [id, note]);
/** Moves the counter from `from` to `from + 1`, inserting `id` in the same statement; returns a row only when the counter was `from`. */
const guardFrom = (from: number, id: number) =>
  CompiledQuery.raw('with added as (insert into direct_rows (id, note) values ($1, $2)) update direct_counter set value = value + 1 where value = $3 returning value', [id, 'by the guard', from]);

async function rowIds(database: OpenDatabase): Promise<number[]> {
  return (await sql<{ id: number }>`select id from direct_rows order by id`.execute(database.db)).rows.map((row) => row.id);
}

async function counter(database: OpenDatabase): Promise<number> {
  return (await sql<{ value: number }>`select value from direct_counter`.execute(database.db)).rows[0]?.value ?? Number.NaN;
}

/** The direct transaction's contract, on the database `open` gives (its tables made here). */
function describeDirectTransaction(open: () => Promise<OpenDatabase>) {
  let database: OpenDatabase;
  beforeAll(async () => {
    database = await open();
    await sql`create table direct_rows (id integer primary key, note text, bytes bytea)`.execute(database.db);
    await sql`create table direct_counter (value integer not null)`.execute(database.db);
    await sql`insert into direct_counter values (0)`.execute(database.db);
  });
  afterAll(async () => {
    await database.close();
  });

  it('writes the guard and the rest, in order, and commits when the guard gives a row', async () => {
    const write: GuardedWrite = { guard: guardFrom(0, 1), rest: [insert(2), insert(3)] };
    expect(await database.directTransaction(write)).toBe(true);
    expect(await rowIds(database)).toEqual([1, 2, 3]);
    expect(await counter(database)).toBe(1);
  });

  it('writes nothing, its guard\'s own rows included, and resolves to false when the guard gives no row', async () => {
    expect(await database.directTransaction({ guard: guardFrom(0, 4), rest: [insert(5)] })).toBe(false);
    expect(await rowIds(database)).toEqual([1, 2, 3]);
    expect(await counter(database)).toBe(1);
  });

  it('rolls back and rejects with the database\'s error when a statement fails, and the session serves the next one', async () => {
    const collision = database.directTransaction({ guard: guardFrom(1, 6), rest: [insert(7), insert(2)] });
    await expect(collision).rejects.toMatchObject({ code: '23505' });
    expect(await rowIds(database)).toEqual([1, 2, 3]);
    expect(await counter(database)).toBe(1);
    expect(await database.directTransaction({ guard: guardFrom(1, 6), rest: [] })).toBe(true);
    expect(await rowIds(database)).toEqual([1, 2, 3, 6]);
  });

  it('sends a value it cannot write as a literal with its parameters, in its place among the others', async () => {
    const bytes = CompiledQuery.raw('insert into direct_rows (id, bytes) values ($1, $2)', [9, Buffer.from([0, 1, 255])]);
    // The update must see the row inserted before it: the statements run in the order given.
    const after = CompiledQuery.raw('update direct_rows set note = $1 where id = $2', ['bytes stored', 9]);
    expect(await database.directTransaction({ guard: guardFrom(2, 8), rest: [bytes, after, insert(10)] })).toBe(true);
    const stored = await sql<{ note: string; bytes: Buffer }>`select note, bytes from direct_rows where id = 9`.execute(database.db);
    expect(stored.rows[0]?.note).toBe('bytes stored');
    expect([...(stored.rows[0]?.bytes ?? [])]).toEqual([0, 1, 255]);
    expect(await rowIds(database)).toEqual([1, 2, 3, 6, 8, 9, 10]);
  });

  it('takes its turn with the store\'s other statements: none runs inside a direct transaction that rolls back', async () => {
    const stopped = CompiledQuery.raw('update direct_counter set value = value where false returning value', []);
    const writes = Array.from({ length: 20 }, (_, index) => {
      const id = 100 + index;
      // Each direct transaction is stopped by its guard: a statement let in while it ran would be rolled back with it.
      return index % 2 === 0
        ? database.directTransaction({ guard: stopped, rest: [insert(id)] })
        : sql`insert into direct_rows (id, note) values (${id}, ${'by kysely'})`.execute(database.db);
    });
    await Promise.all(writes);
    expect((await rowIds(database)).filter((id) => id >= 100)).toEqual(Array.from({ length: 10 }, (_, index) => 101 + 2 * index));
  });

  describe('with a guard of one statement, sent with the rest as one message', () => {
    /** Moves the counter from `from` to `from + 1`; returns a row only when the counter was `from`. */
    const plainGuard = (from: number) => CompiledQuery.raw('update direct_counter set value = value + 1 where value = $1 returning value', [from]);

    it('commits the guard and the rest when the guard gives a row', async () => {
      const from = await counter(database);
      expect(await database.directTransaction({ guard: plainGuard(from), rest: [insert(300), insert(301)] })).toBe(true);
      expect((await rowIds(database)).filter((id) => id >= 300)).toEqual([300, 301]);
      expect(await counter(database)).toBe(from + 1);
    });

    it('writes nothing and resolves to false when the guard gives no row, and the session serves the next write', async () => {
      const from = await counter(database);
      expect(await database.directTransaction({ guard: plainGuard(from - 1), rest: [insert(302)] })).toBe(false);
      expect((await rowIds(database)).filter((id) => id >= 300)).toEqual([300, 301]);
      expect(await counter(database)).toBe(from);
      expect(await database.directTransaction({ guard: plainGuard(from), rest: [insert(303)] })).toBe(true);
      expect((await rowIds(database)).filter((id) => id >= 300)).toEqual([300, 301, 303]);
    });

    it('rolls back the guard and the rows before a failing statement, and rejects with its error', async () => {
      const from = await counter(database);
      await expect(database.directTransaction({ guard: plainGuard(from), rest: [insert(304), insert(300)] })).rejects.toMatchObject({ code: '23505' });
      expect((await rowIds(database)).filter((id) => id >= 300)).toEqual([300, 301, 303]);
      expect(await counter(database)).toBe(from);
    });

    it('runs in order with parameters when a value cannot be inlined', async () => {
      const from = await counter(database);
      const bytes = CompiledQuery.raw('insert into direct_rows (id, bytes) values ($1, $2)', [305, Buffer.from([7])]);
      expect(await database.directTransaction({ guard: plainGuard(from), rest: [bytes, insert(306)] })).toBe(true);
      expect(await database.directTransaction({ guard: plainGuard(from), rest: [insert(307)] })).toBe(false);
      expect((await rowIds(database)).filter((id) => id >= 300)).toEqual([300, 301, 303, 305, 306]);
    });
  });

  return () => database;
}

const serverUrl = process.env.DATABASE_URL;

describe('a direct transaction on PGlite', () => {
  const database = describeDirectTransaction(() => openDatabase({ memory: true }));

  it('runs its statements by the EXECUTE of statements prepared once on the session', async () => {
    const prepared = async () => (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(database().db)).rows.map((row) => row.statement);
    const guard = (from: number) => CompiledQuery.raw('update direct_counter set value = value + 1 where value = $1 returning value', [from]);
    const from = await counter(database());
    expect(await database().directTransaction({ guard: guard(from), rest: [insert(400)] })).toBe(true);
    const after = await prepared();
    expect(after.filter((statement) => statement.endsWith(' as insert into direct_rows (id, note) values ($1, $2)'))).toHaveLength(1);
    expect(await database().directTransaction({ guard: guard(from + 1), rest: [insert(401)] })).toBe(true);
    expect(await prepared()).toEqual(after);
    expect((await rowIds(database())).filter((id) => id >= 400)).toEqual([400, 401]);
  });
});

if (!serverUrl) console.warn('The PostgreSQL server half of the direct transaction tests is skipped: DATABASE_URL is not set.');
describe.skipIf(!serverUrl)('a direct transaction on a PostgreSQL server', () => {
  let created: Awaited<ReturnType<typeof createServerDatabase>> | undefined;
  const url = () => created?.url ?? '';
  beforeAll(async () => {
    created = await createServerDatabase(serverUrl ?? '', 'direct');
  });
  // Runs after the database's own afterAll (registered later, run first): the connections are closed by then.
  afterAll(async () => {
    await created?.drop();
  });
  const database = describeDirectTransaction(() => openDatabase({ databaseUrl: url() }));

  it('sends its announcement with the commit: heard once it commits, never when the guard or a statement stops it', async () => {
    const listener = new pg.Client({ connectionString: url() });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (message) => heard.push(message.payload ?? ''));
    await listener.query('listen direct_channel');
    try {
      const notice = (payload: string) => [CompiledQuery.raw('select pg_notify($1, $2)', ['direct_channel', payload])];
      expect(await database().directTransaction({ guard: guardFrom(-1, 200), rest: [] }, notice('stopped by the guard'))).toBe(false);
      await expect(database().directTransaction({ guard: guardFrom(await counter(database()), 201), rest: [insert(1)] }, notice('failed'))).rejects.toMatchObject({ code: '23505' });
      expect(await database().directTransaction({ guard: guardFrom(await counter(database()), 202), rest: [] }, notice('agent \'quoted\' \\ one'))).toBe(true);
      for (let waited = 0; heard.length === 0 && waited < 5_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
      // The notices are delivered in commit order: one of the stopped writes, had it been sent, would be here first.
      expect(heard).toEqual(['agent \'quoted\' \\ one']);
    } finally {
      await listener.end();
    }
  });
});
