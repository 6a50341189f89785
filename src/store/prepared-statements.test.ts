import { PGlite } from '@electric-sql/pglite';
import { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inlineParameters } from './inline-parameters.js';
import { PREPARED_PER_SESSION, PreparedStatements } from './prepared-statements.js';

describe('statements kept prepared in a session', () => {
  let client: PGlite;
  /** Runs simple-protocol text on the session, counting the PREPAREs sent. */
  let prepares = 0;
  const run = async (text: string) => {
    if (text.startsWith('prepare ')) prepares++;
    return (await client.exec(text)).at(-1)?.rows ?? [];
  };
  beforeAll(async () => {
    client = new PGlite();
    await client.exec('create table notes (id integer primary key, note text, data jsonb, at timestamptz)');
  });
  afterAll(async () => {
    await client.close();
  });

  it('prepares a statement once and runs it by EXECUTE with its values, as the statement with its values written in would run', async () => {
    const statements = new PreparedStatements();
    const insert = (id: number, note: string | null) => CompiledQuery.raw('insert into notes (id, note, data, at) values ($1, $2, $3, $4) returning id, note, data, at', [id, note, JSON.stringify({ quote: 'it\'s', slash: '\\' }), new Date('2026-11-27T10:00:00Z')]);
    const before = prepares;
    const first = await statements.textOf(insert(1, 'it\'s \\ here'), run);
    const second = await statements.textOf(insert(2, null), run);
    expect(prepares - before).toBe(1);
    expect(first).toMatch(/^execute sliding_context_\d+_1\(/);
    expect(second).toMatch(/^execute sliding_context_\d+_1\(/);
    const viaExecute = await run(first ?? '');
    const viaLiterals = await run(inlineParameters(insert(3, 'it\'s \\ here')) ?? '');
    expect({ ...(viaExecute[0] as object), id: 0 }).toEqual({ ...(viaLiterals[0] as object), id: 0 });
    expect(await run(second ?? '')).toEqual([expect.objectContaining({ id: 2, note: null })]);
    const prepared = await client.query<{ statement: string }>('select statement from pg_prepared_statements');
    const name = /^execute (\w+)\(/.exec(first ?? '')?.[1] ?? '';
    expect(prepared.rows.map((row) => row.statement)).toEqual([`prepare ${name} as ${insert(1, '').sql}`]);
  });

  it('writes in the values of a statement it could not prepare, and does not try it again', async () => {
    const statements = new PreparedStatements();
    // The table is not there yet: PostgreSQL refuses to prepare a statement on it.
    const later = CompiledQuery.raw('insert into later_notes (note) values ($1) returning note', ['kept']);
    const before = prepares;
    expect(await statements.textOf(later, run)).toBe(inlineParameters(later));
    await client.exec('create table later_notes (note text)');
    expect(await statements.textOf(later, run)).toBe(inlineParameters(later));
    expect(prepares - before).toBe(1);
    expect(await run(inlineParameters(later) ?? '')).toEqual([{ note: 'kept' }]);
  });

  it(`keeps at most ${String(PREPARED_PER_SESSION)} statements; the next are sent with their values written in`, async () => {
    const statements = new PreparedStatements();
    const select = (index: number) => CompiledQuery.raw(`select id from notes where id = $1 and ${String(index)} = ${String(index)}`, [index]);
    const before = prepares;
    for (let index = 0; index < PREPARED_PER_SESSION; index++) expect(await statements.textOf(select(index), run)).toMatch(/^execute /);
    expect(await statements.textOf(select(PREPARED_PER_SESSION), run)).toBe(inlineParameters(select(PREPARED_PER_SESSION)));
    expect(prepares - before).toBe(PREPARED_PER_SESSION);
  });

  it('leaves undefined a statement whose values cannot be written in', async () => {
    const statements = new PreparedStatements();
    expect(await statements.textOf(CompiledQuery.raw('select id from notes where note = $1', [Buffer.from([1])]), run)).toBeUndefined();
  });
});
