import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import { lockHolder, storeLockedError } from './directory-lock.js';

/** What a PGlite data directory path holds: PGlite marks its stores with `PG_VERSION`. */
export type StoreDirectoryState = 'missing' | 'empty' | 'store' | 'not-a-store' | 'not-a-directory';

/** What is at `directory` now. */
export function storeDirectoryState(directory: string): StoreDirectoryState {
  let stat;
  try {
    stat = statSync(directory);
  } catch (error) {
    // A path under a file is no directory, on every Node (newer ones no longer throw for it with
    // `throwIfNoEntry: false`): the open then says which part is a file.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'missing';
    if (code === 'ENOTDIR') return 'not-a-directory';
    throw error;
  }
  if (!stat.isDirectory()) return 'not-a-directory';
  if (statSync(join(directory, 'PG_VERSION'), { throwIfNoEntry: false })?.isFile()) return 'store';
  return readdirSync(directory).length === 0 ? 'empty' : 'not-a-store';
}

/**
 * Refuses a directory that cannot be opened as a store, before anything is written: one that
 * holds other files (`NOT_A_STORE`), or, unless `create`, one with no store yet (`NO_STORE`).
 * Anything else (a file, say) is left to the open to report.
 */
export function checkStoreDirectory(directory: string, create: boolean): StoreDirectoryState {
  const state = storeDirectoryState(directory);
  if (state === 'not-a-store') {
    // A store being created holds files before its PG_VERSION: the process creating it says so.
    const holder = lockHolder(directory);
    if (holder) throw storeLockedError(directory, holder);
    throw new SlidingContextError('NOT_A_STORE', `The folder ${directory} is not a sliding-context store (it holds other files and no PG_VERSION); give --data-dir a new or empty folder, or the folder of an existing store.`);
  }
  if (!create && (state === 'missing' || state === 'empty')) {
    throw new SlidingContextError('NO_STORE', `There is no store at ${directory}; check --data-dir (or SLIDING_CONTEXT_DATA_DIR), or create one with \`sliding-context import\` or \`chat\`.`);
  }
  return state;
}
