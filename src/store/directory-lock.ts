import { mkdirSync, openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
import { SlidingContextError } from '../errors/sliding-context-error.js';

/** Lock files this process holds: a second open from the same process is refused too. */
const heldHere = new Set<string>();

/** True when a process with this pid is running (signal 0 only asks). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return typeof error === 'object' && error !== null && 'code' in error && error.code === 'EPERM';
  }
}

/**
 * Takes the exclusive lock file beside a PGlite data directory: `<dir>.lock`, holding the pid.
 * A lock whose process is gone is stale and taken over. Returns the function that releases it.
 * @throws SlidingContextError `STORE_LOCKED` naming the pid that holds the directory.
 */
export function lockDirectory(directory: string): () => void {
  const path = `${directory}.lock`;
  if (heldHere.has(path)) {
    throw new SlidingContextError('STORE_LOCKED', `The store ${directory} is already open in this process (pid ${process.pid}); close it first.`);
  }
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = openSync(path, 'wx', 0o600);
      writeSync(handle, String(process.pid));
      closeSync(handle);
      heldHere.add(path);
      return () => {
        heldHere.delete(path);
        rmSync(path, { force: true });
      };
    } catch (error) {
      if (!(typeof error === 'object' && error !== null && 'code' in error && error.code === 'EEXIST')) throw error;
      const holder = Number.parseInt(readFileSync(path, 'utf8'), 10);
      if (Number.isSafeInteger(holder) && holder !== process.pid && isRunning(holder)) {
        throw new SlidingContextError(
          'STORE_LOCKED',
          `The store ${directory} is in use by process ${holder}; PGlite allows one process at a time, so close that process or use a PostgreSQL server (--database-url).`,
        );
      }
      // The holder is gone (or is us after a crash): the lock is stale.
      rmSync(path, { force: true });
    }
  }
  throw new SlidingContextError('STORE_LOCKED', `Could not take the lock file ${path}; another process keeps creating it.`);
}
