import { join } from 'node:path';
import { xdgDirectory } from './home-directories.js';

/** `$XDG_DATA_HOME/sliding-context` (an absolute one), else `~/.local/share/sliding-context`. */
export function defaultDataDir(environment: Readonly<Record<string, string | undefined>>): string {
  return join(xdgDirectory(environment.XDG_DATA_HOME, join('.local', 'share')), 'sliding-context');
}
