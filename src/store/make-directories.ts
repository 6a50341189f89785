import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * `mkdir -p`: makes `path` and its missing parents, each with `mode`. Not `mkdirSync`'s
 * `recursive`, which loops forever (and ignores signals) under a directory where nothing can be
 * made, such as `/proc`: here the first directory that cannot be made throws its error.
 */
export function makeDirectories(path: string, mode: number): void {
  const missing: string[] = [];
  for (let each = resolve(path); statSync(each, { throwIfNoEntry: false }) === undefined && dirname(each) !== each; each = dirname(each)) missing.unshift(each);
  for (const directory of missing) {
    try {
      mkdirSync(directory, { mode });
    } catch (error) {
      // Made meanwhile by another process: as good as made here.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || statSync(directory, { throwIfNoEntry: false })?.isDirectory() !== true) throw error;
    }
  }
}
