import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { ModelMessage } from '../message/message.js';
import { prefixDigestLookup } from './find-stored-prefix.js';
import { HistoryStore } from './history-store.js';
import { type OpenDatabase, openDatabase } from './open-database.js';

/** A store over a database this test can query too. */
class StoreOver extends HistoryStore {
  static over(database: OpenDatabase): StoreOver {
    return new StoreOver(database);
  }
}

const digestsOf = async (database: OpenDatabase) => (await sql<{ digest: string }>`select digest from prefix_digests limit 111`.execute(database.db)).rows.map((row) => row.digest);

/** The rows the planner expects the lookup of `digests` to find: what decides between the index and a scan of the table. */
async function expectedRows(database: OpenDatabase, digests: readonly string[]): Promise<number> {
  const query = prefixDigestLookup(database.db, digests).compile();
  const { rows } = await sql.raw<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(`explain (format json) ${query.sql.replace('$1', `'${digests.join(',')}'`)}`).execute(database.db);
  return rows[0]?.['QUERY PLAN'][0].Plan['Plan Rows'] ?? Number.NaN;
}

describe('the prefix index on PGlite, which no autovacuum analyzes', () => {
  it('is analyzed by the first prefix lookup once it holds rows: the planner then expects a row or so a digest, not half the table', async () => {
    const database = await openDatabase({ memory: true });
    const store = StoreOver.over(database);
    try {
      const request: ModelMessage[] = [{ role: 'user', content: 'nothing stored starts so' }];
      // Empty: nothing to analyze yet, and nothing is found.
      expect(await store.findStoredPrefix(request)).toBeUndefined();
      for (let agent = 0; agent < 4; agent++) {
        const messages = Array.from({ length: 2_000 }, (_, index): ModelMessage => ({ role: index % 2 === 0 ? 'user' : 'assistant', content: `agent ${agent} message ${index}` }));
        await store.createAgentWithMessages({}, messages);
      }
      const digests = await digestsOf(database);
      expect(digests.length).toBe(111);
      // Without statistics the planner takes 111 digests for half the table (and, on a large one, reads all of it).
      expect(await expectedRows(database, digests)).toBeGreaterThan(1_000);
      expect(await store.findStoredPrefix(request)).toBeUndefined();
      // Analyzed: about one row a digest, which the index on `digest` answers.
      expect(await expectedRows(database, digests)).toBeLessThan(250);
    } finally {
      await store.close();
    }
  }, 120_000);
});
