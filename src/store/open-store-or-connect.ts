import { isSlidingContextError } from '../errors/sliding-context-error.js';
import { lockHolder } from './directory-lock.js';
import { HistoryStore, type OpenStoreOptions } from './history-store.js';
import type { StoreLocation } from './open-database.js';
import { RemoteHistoryStore } from './remote-history-store.js';

/**
 * Opens the store at `location`; a PGlite directory another process holds is reached through
 * that process instead, when it serves the directory.
 * @throws SlidingContextError `STORE_LOCKED` naming the holder's pid and command when it does
 * not serve (an older version, or one still starting); whatever {@link HistoryStore.open} throws
 */
export async function openStoreOrConnect(location: StoreLocation, options: OpenStoreOptions = {}): Promise<HistoryStore> {
  try {
    return await HistoryStore.open(location, options);
  } catch (error) {
    if (!('dataDir' in location) || !isSlidingContextError(error, 'STORE_LOCKED')) throw error;
    const holder = lockHolder(location.dataDir);
    // Released since: the directory is this process's to open.
    if (holder === undefined) return HistoryStore.open(location, options);
    if (holder.pid === process.pid) throw error;
    const remote = await RemoteHistoryStore.connect(location.dataDir, holder, options);
    if (remote === undefined) throw error;
    return remote;
  }
}
