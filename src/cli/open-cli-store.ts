import type { HistoryStore } from '../store/history-store.js';
import type { StoreLocation } from '../store/open-database.js';
import { defaultDataDir } from '../store/default-data-dir.js';
import { isSlidingContextError, SlidingContextError } from '../errors/sliding-context-error.js';
import { unknownAgent } from '../store/stored-rows.js';
import type { CliIo } from './cli-io.js';
import { settingFromEnv } from './cli-settings.js';
import { expandHomeDirectory } from './expand-home-directory.js';

/** The store flags every store command takes. */
export interface StoreFlags {
  readonly dataDir?: string | undefined;
  readonly databaseUrl?: string | undefined;
}

/**
 * The store the flags and environment name, a flag first: `--database-url`, `--data-dir`, then
 * `DATABASE_URL`, `SLIDING_CONTEXT_DATA_DIR`, else the data home. The config file's setting
 * arrives as a flag when neither a flag nor an env var names a store (see `applyCliSettings`); the order is `cli-settings.ts`'s.
 * `create: false` (read-only commands) refuses a directory or a server database that holds no
 * store yet, creating nothing there. An empty flag is refused (an unset shell variable in
 * `--data-dir "$DIR"` must not reach the data home's store); an empty env var counts as unset.
 * A directory's leading `~/` is the home directory, from a flag, the env var or the config file.
 * @throws SlidingContextError `INVALID_OPTION` for an empty `--data-dir` or `--database-url`, or a blank env var
 */
export function cliStoreLocation(io: Pick<CliIo, 'env'>, flags: StoreFlags, options: { readonly create?: boolean } = {}): StoreLocation {
  refuseEmptyStoreFlags(flags);
  const create = options.create === false ? { create: false } : {};
  if (flags.databaseUrl) return { databaseUrl: flags.databaseUrl, ...create };
  if (flags.dataDir) return { dataDir: expandHomeDirectory(flags.dataDir), ...create };
  const databaseUrl = refuseBlankEnv('DATABASE_URL', settingFromEnv('databaseUrl', flags, io.env));
  if (databaseUrl !== undefined) return { databaseUrl, ...create };
  const dataDir = refuseBlankEnv('SLIDING_CONTEXT_DATA_DIR', settingFromEnv('dataDir', flags, io.env));
  return { dataDir: dataDir === undefined ? defaultDataDir(io.env) : expandHomeDirectory(dataDir), ...create };
}

const storeWanted = (name: string) => (name === '--data-dir' || name === 'SLIDING_CONTEXT_DATA_DIR' ? 'a directory' : 'a postgres:// URL');

/**
 * Refuses an empty or all-whitespace `--data-dir` or `--database-url` (typed, or from the config
 * file), for every command before it runs: one that keeps its store in memory without it too.
 * @throws SlidingContextError `INVALID_OPTION` naming the flag
 */
export function refuseEmptyStoreFlags(flags: { readonly dataDir?: unknown; readonly databaseUrl?: unknown }): void {
  for (const [flag, value] of [['--data-dir', flags.dataDir], ['--database-url', flags.databaseUrl]] as const) {
    if (typeof value === 'string' && value.trim() === '') throw new SlidingContextError('INVALID_OPTION', `${flag}: the value is empty; give ${storeWanted(flag)}, or leave the option out.`);
  }
}

/** An env var's store setting; an all-whitespace one is refused (an empty one is unset already). */
function refuseBlankEnv(name: string, value: string | undefined): string | undefined {
  if (value !== undefined && value.trim() === '') throw new SlidingContextError('INVALID_OPTION', `${name}: the value is blank; give ${storeWanted(name)}, or unset it.`);
  return value;
}

/**
 * Opens the store {@link cliStoreLocation} names, runs `work` and closes the store, on an
 * interrupt too (a checkpoint is written first). A read-only command passes `create: false`.
 * A PGlite directory another process holds (a running chat) is used through that process.
 */
export async function withCliStore<Result>(
  io: CliIo,
  flags: StoreFlags,
  work: (store: HistoryStore) => Promise<Result>,
  options: { readonly create?: boolean } = {},
): Promise<Result> {
  // Loaded here: `history` draws a saved outline without the database code.
  const [{ openStoreOrConnect }, { saveHistoryViews }] = await Promise.all([import('../store/open-store-or-connect.js'), import('../conversation/history-outline.js')]);
  // The views `history` draws are saved by the store, for each agent written, as it closes.
  const store = await openStoreOrConnect(cliStoreLocation(io, flags, options), { saveViews: saveHistoryViews });
  const cancel = io.onInterrupt(() => store.close());
  try {
    return await work(store);
  } catch (error) {
    throw await withForkIdHint(store, error);
  } finally {
    cancel();
    await store.close();
  }
}

/**
 * An `UNKNOWN_AGENT` for a bare uuid that is a fork's own part (`agents` shows a fork so, under
 * its root) told the fork's full id, `<root>:<fork>`; any other error as it is.
 */
async function withForkIdHint(store: HistoryStore, error: unknown): Promise<unknown> {
  if (!isSlidingContextError(error, 'UNKNOWN_AGENT')) return error;
  const forks = (await store.listAgents().catch(() => [])).flatMap(({ agentId }) => {
    const id = agentId.split(':')[1];
    return id === undefined ? [] : [{ agentId, id }];
  });
  const fork = forks.find(({ id }) => unknownAgent({ rootId: id, id }).message === error.message);
  if (!fork) return error;
  return new SlidingContextError('UNKNOWN_AGENT', `No agent ${fork.id} in this store: that is the fork ${fork.agentId} (a fork's id is <root>:<fork>, as \`agents --json\` shows it); pass the whole id.`, { cause: error });
}
