import { HistoryStore } from '../store/history-store.js';
import { defaultDataDir } from '../store/open-database.js';
import type { CliIo } from './cli-io.js';

/** The store flags every store command takes. */
export interface StoreFlags {
  readonly dataDir?: string | undefined;
  readonly databaseUrl?: string | undefined;
}

/**
 * Opens the store the flags and environment name: `--database-url` or `DATABASE_URL` for a
 * server, else the PGlite directory from `--data-dir`, `SLIDING_CONTEXT_DATA_DIR` or the data home.
 * Runs `work` and closes the store, on an interrupt too (a checkpoint is written first).
 */
export async function withCliStore<Result>(io: CliIo, flags: StoreFlags, work: (store: HistoryStore) => Promise<Result>): Promise<Result> {
  const databaseUrl = flags.databaseUrl ?? io.env.DATABASE_URL;
  const store = await HistoryStore.open(
    databaseUrl ? { databaseUrl } : { dataDir: flags.dataDir ?? io.env.SLIDING_CONTEXT_DATA_DIR ?? defaultDataDir(io.env) },
  );
  const cancel = io.onInterrupt(() => store.close());
  try {
    return await work(store);
  } finally {
    cancel();
    await store.close();
  }
}
