/**
 * `npm run bench:peers`: installs the libraries the benchmarks compare against (bench/peers, a
 * package of its own) when they are missing or stale, so the project's own install never sees
 * their pinned dependencies. npm records the tree it installed in node_modules/.package-lock.json;
 * the peers are stale when that tree differs from bench/peers/package-lock.json.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface LockedPackage {
  readonly version?: string;
  readonly optional?: boolean;
}

const peersDir = fileURLToPath(new URL('peers/', import.meta.url));
const lockfile = new URL('peers/package-lock.json', import.meta.url);
const installedLockfile = new URL('peers/node_modules/.package-lock.json', import.meta.url);

function lockedPackages(file: URL): Record<string, LockedPackage> {
  return (JSON.parse(readFileSync(file, 'utf8')) as { packages?: Record<string, LockedPackage> }).packages ?? {};
}

/** Why the peers need installing, or undefined when the installed tree is the locked one. */
function staleReason(): string | undefined {
  if (!existsSync(installedLockfile)) return 'not installed';
  const installed = lockedPackages(installedLockfile);
  for (const [path, locked] of Object.entries(lockedPackages(lockfile))) {
    // The root entry, and optional packages for other platforms, are never in the installed tree.
    if (path === '' || (locked.optional === true && !(path in installed))) continue;
    if (installed[path]?.version !== locked.version) return `${path} is not ${locked.version ?? 'installed'}`;
  }
  return undefined;
}

const reason = staleReason();
if (reason !== undefined) {
  console.error(`Installing the benchmark peers in bench/peers (${reason})…`);
  execFileSync('npm', ['ci', '--prefix', peersDir, '--no-audit', '--no-fund', '--loglevel=error'], { stdio: 'inherit', shell: process.platform === 'win32' });
}
