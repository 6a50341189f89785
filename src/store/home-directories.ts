import { homedir, userInfo } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** The home directory: `$HOME` when it is an absolute path, else the user's own from the system (never the working directory). */
export function homeDirectory(): string {
  const home = homedir();
  return isAbsolute(home) ? home : userInfo().homedir;
}

/**
 * An XDG base directory: the variable's value when it is an absolute path (the XDG spec has an
 * empty or relative one ignored), else `fallback` (a relative path) under the home directory.
 * @see https://specifications.freedesktop.org/basedir-spec/latest/
 */
export function xdgDirectory(value: string | undefined, fallback: string): string {
  return value !== undefined && isAbsolute(value) ? value : join(homeDirectory(), fallback);
}
