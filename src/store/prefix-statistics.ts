import { sql } from 'kysely';
import type { StoreDatabase } from './stored-rows.js';

/**
 * Gives the prefix index planner statistics once it holds rows, when it has none. PGlite runs no
 * autovacuum, so its tables are never analyzed by themselves; without statistics the planner takes
 * the lookup of a request's hundred digests for a large part of the table and scans all of it
 * (about 30 ms at 30,000 rows, 100 ms at 500,000) instead of using the index on `digest`. Once
 * analyzed, the digests show as nearly all distinct, which stays so as the table grows. True once
 * the statistics exist (nothing more to do); false while the index is still empty.
 */
export async function analyzePrefixIndexOnce(db: StoreDatabase): Promise<boolean> {
  const { rows } = await sql<{ analyzed: boolean; filled: boolean }>`
    select exists (select 1 from pg_stats where schemaname = current_schema() and tablename = 'prefix_digests' and attname = 'digest') as analyzed,
           exists (select 1 from prefix_digests) as filled`.execute(db);
  const state = rows[0];
  if (state?.analyzed === true) return true;
  if (state?.filled !== true) return false;
  await sql`analyze prefix_digests`.execute(db);
  return true;
}
