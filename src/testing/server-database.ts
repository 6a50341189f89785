import pg from 'pg';

/**
 * A fresh database on the PostgreSQL server at `serverUrl`, for one test or benchmark run:
 * its URL, and `drop()` to remove it (connections included).
 */
export async function createServerDatabase(serverUrl: string, purpose: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `sliding_context_${purpose}_${process.pid}_${Date.now()}`;
  const admin = new pg.Pool({ connectionString: serverUrl, max: 1 });
  await admin.query(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      // Closed clients may still be on their way out: give their backends a moment to exit, since
      // forcing the drop on a backend that is ending sends its client an error nobody listens for.
      for (let attempt = 0; attempt < 100; attempt++) {
        const { rows } = await admin.query<{ connections: string }>('select count(*) as connections from pg_stat_activity where datname = $1', [name]);
        if (Number(rows[0]?.connections) === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}
