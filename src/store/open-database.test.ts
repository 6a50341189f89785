import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from './open-database.js';

const work = mkdtempSync(join(tmpdir(), 'open-database-'));
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('openDatabase on PGlite', () => {
  it('starts PGlite with a 32 MB buffer pool, in a directory and in memory', async () => {
    for (const location of [{ dataDir: join(work, 'store') }, { memory: true as const }]) {
      const database = await openDatabase(location);
      try {
        const { rows } = await sql<{ shared_buffers: string }>`show shared_buffers`.execute(database.db);
        expect(rows[0]?.shared_buffers).toBe('32MB');
      } finally {
        await database.close();
      }
    }
  }, 60_000);
});
