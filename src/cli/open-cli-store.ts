import type { HistoryStore } from '../store/history-store.js';
import { defaultDataDir } from '../store/default-data-dir.js';
import type { CliIo } from './cli-io.js';

/** The store flags every store command takes. */
export interface StoreFlags {
  readonly dataDir?: string | undefined;
  readonly databaseUrl?: string | undefined;
}

/**
 * The store the flags and environment name: `--database-url` or `DATABASE_URL` for a server,
 * else the PGlite directory from `--data-dir`, `SLIDING_CONTEXT_DATA_DIR` or the data home.
 */
export function cliStoreLocation(io: CliIo, flags: StoreFlags): { readonly databaseUrl: string } | { readonly dataDir: string } {
  const databaseUrl = flags.databaseUrl ?? io.env.DATABASE_URL;
  return databaseUrl ? { databaseUrl } : { dataDir: flags.dataDir ?? io.env.SLIDING_CONTEXT_DATA_DIR ?? defaultDataDir(io.env) };
}

/**
 * Opens the store {@link cliStoreLocation} names, runs `work` and closes the store, on an
 * interrupt too (a checkpoint is written first).
 */
export async function withCliStore<Result>(io: CliIo, flags: StoreFlags, work: (store: HistoryStore) => Promise<Result>): Promise<Result> {
  // Loaded here: `history` draws a saved outline without the database code.
  const { HistoryStore } = await import('../store/history-store.js');
  const store = await HistoryStore.open(cliStoreLocation(io, flags));
  const cancel = io.onInterrupt(() => store.close());
  try {
    return await work(store);
  } finally {
    cancel();
    await store.close();
  }
}
