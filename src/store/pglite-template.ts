import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, Migrator, sql } from 'kysely';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import type { DatabaseSchema } from './database-schema.js';
import { makeDirectories } from './make-directories.js';
import { latestMigration, migrationProvider } from './migrations.js';
import { pgliteDialect } from './pglite-dialect.js';
import { xdgDirectory } from './home-directories.js';
import { restrictToOwner } from './restrict-to-owner.js';

/**
 * An empty store, made once per PGlite version and schema and kept in the user's cache folder
 * (`$XDG_CACHE_HOME/sliding-context`, else `~/.cache/sliding-context`): its data directory, and
 * the same as an archive for a store in memory. PGlite runs `initdb` for every new store, which
 * takes seconds; a copy of the template's files takes a fraction of one.
 */
export interface PGliteTemplate {
  readonly directory: string;
  readonly archive: string;
}

function cacheFolder(): string {
  return join(xdgDirectory(process.env.XDG_CACHE_HOME, '.cache'), 'sliding-context');
}

/** The installed PGlite's version: a new one may lay out its files differently. */
function pgliteVersion(): string {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const manifest = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version?: unknown };
  return String(manifest.version);
}

/** Makes a store in `folder/store`, migrated to the newest schema, and its archive beside it. */
async function buildTemplate(folder: string, startParams: readonly string[]): Promise<void> {
  const client = new PGlite(join(folder, 'store'), { startParams: [...startParams] });
  const db = new Kysely<DatabaseSchema>({ dialect: pgliteDialect(client) });
  try {
    const { error } = await new Migrator({ db, provider: migrationProvider }).migrateToLatest();
    if (error) throw error instanceof Error ? error : new SlidingContextError('MIGRATION_FAILED', 'A migration of the store template failed.', { cause: error });
    await sql`checkpoint`.execute(db);
    const archive = await client.dumpDataDir('none');
    writeFileSync(join(folder, 'store.tar'), Buffer.from(await archive.arrayBuffer()));
  } finally {
    await db.destroy();
  }
}

let pending: Promise<PGliteTemplate | undefined> | undefined;

/**
 * The template, made first when there is none: built in a folder of its own and renamed into
 * place, so that a process never sees half of one and two processes building at once both end
 * with a whole one. Undefined when it cannot be made (no writable cache folder, say): a new store
 * is then made as PGlite makes it.
 */
export function pgliteTemplate(startParams: readonly string[]): Promise<PGliteTemplate | undefined> {
  pending ??= findOrBuild(startParams).catch(() => undefined);
  return pending;
}

/** A build folder untouched for this long was left by a process that died while building (a build takes seconds). */
export const ABANDONED_BUILD_MS = 60 * 60 * 1000;

/** Removes the build folders in `root` that a killed process left behind (each about 40 MB). */
function removeAbandonedBuilds(root: string): void {
  const now = Date.now();
  for (const name of readdirSync(root)) {
    if (!name.startsWith('building-')) continue;
    const path = join(root, name);
    try {
      if (now - statSync(path).mtimeMs > ABANDONED_BUILD_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // Gone already (its builder finished), or not ours to remove: left as it is.
    }
  }
}

async function findOrBuild(startParams: readonly string[]): Promise<PGliteTemplate | undefined> {
  const root = cacheFolder();
  const folder = join(root, `pglite-${pgliteVersion()}-${latestMigration}`);
  const template = { directory: join(folder, 'store'), archive: join(folder, 'store.tar') };
  if (existsSync(template.archive)) return template;
  makeDirectories(root, 0o700);
  removeAbandonedBuilds(root);
  const building = mkdtempSync(join(root, 'building-'));
  try {
    await buildTemplate(building, startParams);
    restrictToOwner(building);
    try {
      renameSync(building, folder);
    } catch (error) {
      // Another process put its template in place first: that one is used.
      if (!existsSync(template.archive)) throw error;
    }
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  return template;
}

/**
 * Fills an empty data directory with a copy of the template's files. False when the copy failed:
 * what it wrote is taken out again, and the directory is as empty as it was.
 */
export function copyTemplate(template: PGliteTemplate, dataDir: string): boolean {
  try {
    cpSync(template.directory, dataDir, { recursive: true });
    return true;
  } catch {
    for (const name of readdirSync(dataDir)) rmSync(join(dataDir, name), { recursive: true, force: true });
    return false;
  }
}

/** The template as PGlite's `loadDataDir` takes it, for a store in memory. */
export function templateArchive(template: PGliteTemplate): Blob {
  return new Blob([readFileSync(template.archive)]);
}
