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
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}
