import fc from 'fast-check';
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServerDatabase } from '../testing/server-database.js';
import { inlineParameters } from './inline-parameters.js';
import { openDatabase, type OpenDatabase } from './open-database.js';

/** A row of every kind of value the store's statements carry, and the statement that inserts it (`$1` … `$12`). */
const COLUMNS = ['tag', 'word', 'note', 'body', 'count', 'ratio', 'flag', 'at', 'nothing', 'seq', 'big', 'last'] as const;
const TABLE = `create table inline_check (tag text, word text, note text, body jsonb, count integer, ratio double precision,
  flag boolean, at timestamptz, nothing text, seq bigint, big bigint, last text)`;
const insertInto = (tag: string, values: readonly unknown[]) =>
  CompiledQuery.raw(`insert into "inline_check" (${COLUMNS.map((column) => `"${column}"`).join(', ')}) values (${COLUMNS.map((_, index) => `$${String(index + 1)}`).join(', ')})`, [tag, ...values]);

/** Text PostgreSQL stores (no NUL character), with the quotes, backslashes and placeholders an escape could get wrong. */
const text = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.array(fc.constantFrom('\'', '\\', '\'\'', '\\\'', '$1', '$12', 'E\'', '"', ';', '\n', 'é', '😀'), { maxLength: 12 }).map((parts) => parts.join('')),
).filter((value) => !value.includes('\u0000'));

const row = fc.tuple(
  text,
  text,
  fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)).filter((json) => !json.includes('\\u0000')),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }),
  fc.constant(null),
  fc.integer({ min: 0 }),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  text,
);

async function checkAgainstParameters(database: OpenDatabase): Promise<void> {
  await sql.raw(TABLE).execute(database.db);
  let next = 0;
  await fc.assert(
    fc.asyncProperty(row, async (values) => {
      const tag = String(next++);
      await database.db.executeQuery(insertInto(tag, values));
      const inlined = inlineParameters(insertInto(`${tag}-inlined`, values));
      expect(inlined).toBeDefined();
      await sql.raw(inlined ?? '').execute(database.db);
      const read = await sql<Record<string, unknown>>`select * from inline_check where tag in (${tag}, ${`${tag}-inlined`}) order by tag`.execute(database.db);
      const [byParameters, byLiterals] = read.rows;
      expect({ ...byLiterals, tag }).toEqual({ ...byParameters, tag });
    }),
    { numRuns: 150 },
  );
}

describe('inlining a statement\'s parameters', () => {
  it('writes each placeholder\'s own value, $1 and $12 told apart, and leaves a placeholder-like text in a value as it is', () => {
    const values = Array.from({ length: 12 }, (_, index) => `v${String(index + 1)}`);
    values[0] = '$12';
    const inlined = inlineParameters(CompiledQuery.raw(`select ${values.map((_, index) => `$${String(index + 1)}`).join(', ')}`, values));
    expect(inlined).toBe(`select E'$12', ${values.slice(1).map((value) => `E'${value}'`).join(', ')}`);
  });

  it('writes null, numbers, booleans and dates as PostgreSQL reads the text a driver sends for them', () => {
    const at = new Date('2026-11-26T10:00:00.123Z');
    expect(inlineParameters(CompiledQuery.raw('select $1, $2, $3, $4, $5, $6', [null, undefined, 42, 1.5, true, at]))).toBe(
      'select null, null, E\'42\', E\'1.5\', E\'true\', E\'2026-11-26T10:00:00.123Z\'',
    );
  });

  it('gives up on a value it cannot write as a literal: bytes, an object, an array, an invalid date, text with a NUL', () => {
    for (const value of [Buffer.from('x'), new Uint8Array([1]), { a: 1 }, ['a'], new Date(Number.NaN), 'before\u0000after']) {
      expect(inlineParameters(CompiledQuery.raw('select $1, $2', ['fine', value]))).toBeUndefined();
    }
  });

  it('property, on PGlite: a row inserted with its values inlined reads back as the same row inserted with parameters', async () => {
    const database = await openDatabase({ memory: true });
    try {
      await checkAgainstParameters(database);
    } finally {
      await database.close();
    }
  });

  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) console.warn('The PostgreSQL server half of the inlined parameters test is skipped: DATABASE_URL is not set.');
  describe.skipIf(!serverUrl)('on a PostgreSQL server', () => {
    let database: OpenDatabase;
    let created: Awaited<ReturnType<typeof createServerDatabase>> | undefined;
    beforeAll(async () => {
      created = await createServerDatabase(serverUrl ?? '', 'inline');
      // One connection: the setting below holds for every statement.
      database = await openDatabase({ databaseUrl: created.url, connections: 1 });
    });
    afterAll(async () => {
      await database.close();
      await created?.drop();
    });

    it('property: a row inserted with its values inlined reads back as the same row inserted with parameters', async () => {
      await checkAgainstParameters(database);
    });

    it('reads a backslash and a quote the same with standard_conforming_strings off', async () => {
      await sql`set standard_conforming_strings = off`.execute(database.db);
      try {
        const value = 'a\\b\'c\\\\\'';
        const inlined = inlineParameters(CompiledQuery.raw('select $1::text as value', [value])) ?? '';
        expect((await sql.raw<{ value: string }>(inlined).execute(database.db)).rows[0]?.value).toBe(value);
      } finally {
        await sql`set standard_conforming_strings = on`.execute(database.db);
      }
    });
  });
});
