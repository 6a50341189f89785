import { join } from 'node:path';
import { homeDirectory } from '../store/home-directories.js';

/**
 * `path` with a leading `~` or `~/` taken as the home directory, as the shell does where it
 * expands one (it does not after `=`: `--data-dir=~/store`, nor in a settings file).
 * `~user` is left as it is.
 */
export function expandHomeDirectory(path: string): string {
  if (path === '~') return homeDirectory();
  return path.startsWith('~/') ? join(homeDirectory(), path.slice(2)) : path;
}
