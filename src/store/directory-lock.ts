/**
 * The exclusive lock beside a PGlite data directory: `<dir>.lock`, a small JSON file naming the
 * holder's pid and command line. Written by hand rather than with a lock library: the mkdir and
 * mtime based ones (proper-lockfile) notice a killed holder only after a staleness timeout, need
 * a timer refreshing the lock for as long as a chat lasts, and keep no pid to tell the user; an
 * `flock` needs a native addon. A pid that no longer runs is noticed at once.
 *
 * Every step that decides is one atomic link(2), which fails when its target exists: the lock is
 * written aside in full and linked into place, so a reader never sees it half written; a stale
 * lock is removed only by the process that first links its marker `<lock>.stale-<nonce>`, after
 * checking that the lock still carries that nonce. So exactly one process wins a takeover.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, fstatSync, linkSync, openSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { z } from 'zod';
import { errorCode } from '../errors/error-code.js';
import { SlidingContextError } from '../errors/sliding-context-error.js';

/** The process holding a store: what a refused process tells its user. */
export interface LockHolder {
  readonly pid: number;
  /** Its command line, as it started (`sliding-context chat`). */
  readonly command: string;
  /** True when it serves the directory to other processes once open (an older version says nothing). */
  readonly serves?: boolean | undefined;
}

/** A lock file as read: its holder when it names one, and what tells this file from any other. */
interface LockFile {
  readonly holder: LockHolder | undefined;
  readonly identity: string;
}

const LOCK_FILE_SCHEMA = z.object({
  pid: z.number().int().positive(),
  command: z.string(),
  nonce: z.string().regex(/^[\w-]+$/),
  serves: z.boolean().optional(),
});

/** How long a process keeps trying while others take over a stale lock, in milliseconds. */
const TAKEOVER_PATIENCE_MS = 5_000;

/** Lock files this process holds: a second open from the same process is refused too. */
const heldHere = new Set<string>();

/** The path of the lock beside a data directory. */
export function lockPath(directory: string): string {
  return `${directory}.lock`;
}

/** True when a process with this pid is running (signal 0 only asks). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}

/** True while the holder runs; a lock naming this process that it does not hold is left from before. */
function isHeld(path: string, file: LockFile): boolean {
  if (file.holder === undefined) return false;
  return file.holder.pid === process.pid ? heldHere.has(path) : isRunning(file.holder.pid);
}

/** Blocks for a few milliseconds: the lock is taken synchronously, as saved views read it. */
function pause(milliseconds: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, milliseconds);
}

/** The command line of this process, the script's name first (`sliding-context chat`). */
function commandLine(): string {
  const [, script, ...args] = process.argv;
  return [script === undefined ? process.argv0 : basename(script), ...args].join(' ').slice(0, 200);
}

/**
 * Reads a lock file, or undefined when there is none (released meanwhile). A file in an older
 * form (a bare pid) or unreadable is told apart by its inode and change time.
 */
function readLockFile(path: string): LockFile | undefined {
  let handle: number;
  try {
    handle = openSync(path, 'r');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const text = readFileSync(handle, 'utf8');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const lock = LOCK_FILE_SCHEMA.safeParse(parsed);
    if (lock.success) return { holder: { pid: lock.data.pid, command: lock.data.command, serves: lock.data.serves === true }, identity: lock.data.nonce };
    const stat = fstatSync(handle, { bigint: true });
    const identity = `file-${stat.ino}-${stat.ctimeNs}`;
    return /^\d+$/.test(text.trim()) ? { holder: { pid: Number(text.trim()), command: 'unknown command' }, identity } : { holder: undefined, identity };
  } finally {
    closeSync(handle);
  }
}

/** Creates `path` holding `content` unless it exists: whole, in one atomic step. */
function createExclusive(path: string, content: string): boolean {
  const aside = `${path}.${randomUUID()}.partial`;
  writeFileSync(aside, content, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(aside, path);
    return true;
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(aside, { force: true });
  }
}

function lockContent(nonce: string, serves = false): string {
  return JSON.stringify({ pid: process.pid, command: commandLine(), nonce, ...(serves ? { serves } : {}) });
}

/**
 * Removes the stale lock file at `path` if it is still the one read (`stale`). Only the process
 * that creates the marker for that file removes it; one that finds the marker left by a dead
 * process removes the marker first, the same way.
 */
function removeStale(path: string, stale: LockFile): void {
  const marker = `${path}.stale-${stale.identity}`;
  if (!createExclusive(marker, lockContent(randomUUID()))) {
    const remover = readLockFile(marker);
    if (remover === undefined) return;
    if (isHeld(marker, remover)) pause(2);
    else removeStale(marker, remover);
    return;
  }
  try {
    // Nobody else removes a file with this identity, and none is made again: checked, it stays.
    if (readLockFile(path)?.identity === stale.identity) unlinkSync(path);
  } finally {
    rmSync(marker, { force: true });
  }
}

/** The `STORE_LOCKED` error naming the process that holds a directory. */
export function storeLockedError(directory: string, holder: LockHolder): SlidingContextError {
  return new SlidingContextError(
    'STORE_LOCKED',
    `The store ${directory} is in use by process ${holder.pid} (${holder.command}); PGlite allows one process at a time, so close that process or use a PostgreSQL server (--database-url).`,
  );
}

/** The running process that holds the directory's lock, or undefined when none does. */
export function lockHolder(directory: string): LockHolder | undefined {
  const file = readLockFile(lockPath(directory));
  return file && isHeld(lockPath(directory), file) ? file.holder : undefined;
}

/**
 * Takes the exclusive lock file beside a PGlite data directory (whose parent exists). A lock
 * whose process is gone is stale and taken over. Returns the function that releases it.
 * `serves`: the lock says the directory will be served (see serve-store.ts), so that another
 * process finding it held before that waits for it.
 * @throws SlidingContextError `STORE_LOCKED` naming the pid and command that hold the directory.
 */
export function lockDirectory(directory: string, options: { readonly serves?: boolean } = {}): () => void {
  const path = lockPath(directory);
  if (heldHere.has(path)) {
    throw new SlidingContextError('STORE_LOCKED', `The store ${directory} is already open in this process (pid ${process.pid}); close it first.`);
  }
  const nonce = randomUUID();
  const deadline = Date.now() + TAKEOVER_PATIENCE_MS;
  while (Date.now() < deadline) {
    if (createExclusive(path, lockContent(nonce, options.serves))) {
      heldHere.add(path);
      return () => {
        heldHere.delete(path);
        // Removes only its own lock: one taken over meanwhile is another process's.
        if (readLockFile(path)?.identity === nonce) rmSync(path, { force: true });
      };
    }
    const file = readLockFile(path);
    // Released between the two steps: try again.
    if (file === undefined) continue;
    if (file.holder !== undefined && isHeld(path, file)) throw storeLockedError(directory, file.holder);
    removeStale(path, file);
  }
  throw new SlidingContextError('STORE_LOCKED', `Could not take the lock file ${path} within ${TAKEOVER_PATIENCE_MS / 1000} s: other processes keep taking it over; try again.`);
}
