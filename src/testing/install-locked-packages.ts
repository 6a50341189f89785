/**
 * Installs a package folder of its own (its package.json and package-lock.json) with `npm ci` when
 * what is installed there is missing or stale, so the project's own install never sees those
 * dependencies. npm records the tree it installed in node_modules/.package-lock.json; the folder is
 * stale when that tree differs from its package-lock.json.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface LockedPackage {
  readonly version?: string;
  readonly optional?: boolean;
}

function lockedPackages(file: string): Record<string, LockedPackage> {
  return (JSON.parse(readFileSync(file, 'utf8')) as { packages?: Record<string, LockedPackage> }).packages ?? {};
}

/** Why the folder needs installing, or undefined when the installed tree is the locked one. */
function staleReason(directory: string): string | undefined {
  const installedLockfile = join(directory, 'node_modules', '.package-lock.json');
  if (!existsSync(installedLockfile)) return 'not installed';
  const installed = lockedPackages(installedLockfile);
  for (const [path, locked] of Object.entries(lockedPackages(join(directory, 'package-lock.json')))) {
    // The root entry, and optional packages for other platforms, are never in the installed tree.
    if (path === '' || (locked.optional === true && !(path in installed))) continue;
    if (installed[path]?.version !== locked.version) return `${path} is not ${locked.version ?? 'installed'}`;
  }
  return undefined;
}

/** Runs `npm ci` in `directory` when its installed tree is not its locked one; `label` names it in the notice. */
export function installLockedPackages(directory: string, label: string): void {
  const reason = staleReason(directory);
  if (reason === undefined) return;
  console.error(`Installing ${label} in ${directory} (${reason})…`);
  execFileSync('npm', ['ci', '--prefix', directory, '--no-audit', '--no-fund', '--loglevel=error'], { stdio: 'inherit', shell: process.platform === 'win32' });
}
