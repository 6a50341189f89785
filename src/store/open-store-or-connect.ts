import { statSync } from 'node:fs';
import { isSlidingContextError } from '../errors/sliding-context-error.js';
import { lockHolder } from './directory-lock.js';
import { HistoryStore, type OpenStoreOptions } from './history-store.js';
import type { StoreLocation } from './open-database.js';
import { HANDOVER_PATIENCE_MS, RemoteHistoryStore } from './remote-history-store.js';
import { storeSocketPath } from './serve-store.js';

/** How often a closing holder is asked again whether it has let the directory go, in milliseconds. */
const HANDOVER_POLL_MS = 100;

/**
 * True when the holder's socket is there but no longer answers: the holder stopped serving and
 * is closing the store (writing it out can take seconds after a large import); the socket goes
 * just before the lock does.
 */
function isClosing(dataDir: string): boolean {
  return statSync(storeSocketPath(dataDir), { throwIfNoEntry: false })?.isSocket() === true;
}

/**
 * Opens the store at `location`; a PGlite directory another process holds is reached through
 * that process instead, when it serves the directory. A holder that is closing the directory, or
 * one still opening it that will serve it (its lock says so), is waited for, up to
 * {@link HANDOVER_PATIENCE_MS} ms: the directory is then opened here, or reached through it.
 * @throws SlidingContextError `STORE_LOCKED` naming the holder's pid and command when it does
 * not serve (an older version, a path too long for a socket) or has not let go within that wait;
 * whatever {@link HistoryStore.open} throws
 */
export async function openStoreOrConnect(location: StoreLocation, options: OpenStoreOptions = {}): Promise<HistoryStore> {
  const deadline = Date.now() + HANDOVER_PATIENCE_MS;
  // Set once the directory is seen changing hands, or held by a holder still opening it: from then
  // on a holder that does not serve is waited for.
  let handingOver = false;
  for (;;) {
    try {
      return await HistoryStore.open(location, options);
    } catch (error) {
      if (!('dataDir' in location) || !isSlidingContextError(error, 'STORE_LOCKED')) throw error;
      // Looked at before the lock, which outlasts the socket.
      handingOver ||= isClosing(location.dataDir);
      const holder = lockHolder(location.dataDir);
      if (holder?.pid === process.pid) throw error;
      // Should this holder go away, the directory is opened again the same way: here, or through a new holder.
      const reopen = () => openStoreOrConnect({ dataDir: location.dataDir, create: false }, options);
      const remote = holder && (await RemoteHistoryStore.connect(location.dataDir, holder, options, reopen));
      if (remote) return remote;
      // Released since: the directory is this process's to open, unless another took it first.
      // Or held by one that will serve it once it has opened it (started a moment before this one).
      handingOver ||= holder === undefined || holder.serves === true;
      if (!handingOver || Date.now() > deadline) throw error;
      if (holder !== undefined) await new Promise((resolve) => setTimeout(resolve, HANDOVER_POLL_MS));
    }
  }
}
