/**
 * Saved views: values derived from a PGlite directory (an agent's history outline, say), kept
 * beside it in `<dir>.views` so that a reader can have them without starting PGlite. Every
 * write through a `HistoryStore` drops them all before it writes, and a view is saved only by
 * the process holding the directory lock; so a view that exists matches the data.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAgentId } from './agent-id.js';
import { lockDirectory } from './directory-lock.js';

/** Where a PGlite directory's views are saved: `<dir>.views`, beside its lock file. */
export function savedViewsDirectory(dataDir: string): string {
  return `${dataDir}.views`;
}

/** The view's file; an agent id that is not one is refused (`UNKNOWN_AGENT`) before it names a path. */
function viewPath(dataDir: string, name: string, agentId: string): string {
  const { rootId, id } = parseAgentId(agentId);
  return join(savedViewsDirectory(dataDir), `${name}.${rootId}.${id}.json`);
}

/**
 * The saved view `name` of an agent, parsed, or undefined when there is none. It is read under
 * the directory lock, as the store itself would be.
 * @throws SlidingContextError `STORE_LOCKED` when another process holds the directory.
 */
export function readSavedView(dataDir: string, name: string, agentId: string): unknown {
  const path = viewPath(dataDir, name, agentId);
  if (!existsSync(path)) return undefined;
  const release = lockDirectory(dataDir);
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch {
    // Dropped since the check, or unreadable: the caller reads the store instead.
    return undefined;
  } finally {
    release();
  }
}

/**
 * Saves a view. The caller holds the directory lock and has written nothing since it derived
 * `value`. The file appears whole or not at all (written aside, then renamed).
 */
export function saveView(dataDir: string, name: string, agentId: string, value: unknown): void {
  const path = viewPath(dataDir, name, agentId);
  mkdirSync(savedViewsDirectory(dataDir), { recursive: true, mode: 0o700 });
  const aside = `${path}.${process.pid}.partial`;
  writeFileSync(aside, JSON.stringify(value), { mode: 0o600 });
  renameSync(aside, path);
}

/** Drops every saved view of a directory: done before anything is written to it. */
export function dropSavedViews(dataDir: string): void {
  rmSync(savedViewsDirectory(dataDir), { recursive: true, force: true });
}
