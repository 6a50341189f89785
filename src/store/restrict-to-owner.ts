import { chmodSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Takes every permission of group and others off a file or folder and all it holds (symbolic
 * links are left alone). PGlite creates its files 0666 and folders 0755 whatever the umask, and
 * a store holds whole conversations.
 */
export function restrictToOwner(path: string): void {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (stat === undefined || stat.isSymbolicLink()) return;
  if ((stat.mode & 0o077) !== 0) chmodSync(path, stat.mode & 0o7700);
  if (!stat.isDirectory()) return;
  for (const name of readdirSync(path)) restrictToOwner(join(path, name));
}
