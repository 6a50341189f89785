import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { HistoryStore } from './history-store.js';
import { latestMigration } from './migrations.js';
import { ABANDONED_BUILD_MS } from './pglite-template.js';

const work = mkdtempSync(join(tmpdir(), 'pglite-template-'));
const cache = join(work, 'cache');
const given = process.env.XDG_CACHE_HOME;
afterAll(() => {
  if (given === undefined) delete process.env.XDG_CACHE_HOME;
  else process.env.XDG_CACHE_HOME = given;
  rmSync(work, { recursive: true, force: true });
});

/** The store module loaded afresh (the template is looked for once per process), with this cache folder. */
async function freshStoreModule(cacheHome: string): Promise<typeof HistoryStore> {
  process.env.XDG_CACHE_HOME = cacheHome;
  vi.resetModules();
  return (await import('./history-store.js')).HistoryStore;
}

describe('a new PGlite store starts as a copy of the template', () => {
  it('made once in the cache folder; each store copied from it is empty, at the newest schema, and its own', async () => {
    const Store = await freshStoreModule(cache);
    const first = await Store.open({ dataDir: join(work, 'first') });
    const templateFolder = join(cache, 'sliding-context', readdirSync(join(cache, 'sliding-context')).find((name) => name.startsWith('pglite-')) ?? 'none');
    expect(templateFolder).toMatch(new RegExp(`pglite-\\d+\\.\\d+\\.\\d+-${latestMigration}$`));
    const archive = statSync(join(templateFolder, 'store.tar'));
    // Nothing but the template is left in the cache folder: no half-built one.
    expect(readdirSync(join(cache, 'sliding-context'))).toEqual([templateFolder.split('/').at(-1)]);
    const agent = await first.createAgent();
    await first.append(agent, [{ role: 'user', content: 'only in the first store' }]);
    await first.close();

    const second = await Store.open({ dataDir: join(work, 'second') });
    const memory = await Store.open({ memory: true });
    try {
      expect(await second.listAgents()).toEqual([]);
      expect(await memory.listAgents()).toEqual([]);
      const inMemory = await memory.createAgent();
      await memory.append(inMemory, [{ role: 'user', content: 'in memory' }]);
      expect((await memory.history(inMemory)).length).toBe(1);
    } finally {
      await second.close();
      await memory.close();
    }
    const reopened = await Store.open({ dataDir: join(work, 'first') });
    try {
      expect((await reopened.history(agent)).map((row) => row.message)).toEqual([{ role: 'user', content: 'only in the first store' }]);
    } finally {
      await reopened.close();
    }
    // Stores made from it wrote nothing into it; its files and the copies' are the owner's only.
    expect(statSync(join(templateFolder, 'store.tar')).mtimeMs).toBe(archive.mtimeMs);
    for (const path of [join(templateFolder, 'store', 'PG_VERSION'), join(work, 'second', 'PG_VERSION')]) expect(statSync(path).mode & 0o077).toBe(0);
  }, 120_000);

  it('removes the build folders a killed builder left, and not one that may still be building', async () => {
    const cacheHome = join(work, 'cache-with-leftovers');
    const root = join(cacheHome, 'sliding-context');
    mkdirSync(join(root, 'building-killed', 'store'), { recursive: true });
    mkdirSync(join(root, 'building-running'), { recursive: true });
    const longAgo = (Date.now() - ABANDONED_BUILD_MS - 60_000) / 1000;
    utimesSync(join(root, 'building-killed'), longAgo, longAgo);
    const Store = await freshStoreModule(cacheHome);
    const store = await Store.open({ memory: true });
    await store.close();
    const left = readdirSync(root);
    expect(left).not.toContain('building-killed');
    expect(left).toContain('building-running');
    expect(left.filter((name) => name.startsWith('pglite-'))).toHaveLength(1);
  }, 120_000);

  it('without a cache folder it can write to, a new store is made as PGlite makes it', async () => {
    const blocked = join(work, 'a-file');
    writeFileSync(blocked, 'not a folder');
    const Store = await freshStoreModule(blocked);
    const store = await Store.open({ dataDir: join(work, 'uncached') });
    try {
      const agent = await store.createAgent();
      await store.append(agent, [{ role: 'user', content: 'stored all the same' }]);
      expect((await store.history(agent)).length).toBe(1);
    } finally {
      await store.close();
    }
    expect(statSync(blocked).isFile()).toBe(true);
  }, 120_000);
});
