import { homedir } from 'node:os';
import { join } from 'node:path';

/** `$XDG_DATA_HOME/sliding-context`, else `~/.local/share/sliding-context`. */
export function defaultDataDir(environment: Readonly<Record<string, string | undefined>>): string {
  const base = environment.XDG_DATA_HOME ?? join(homedir(), '.local', 'share');
  return join(base, 'sliding-context');
}
