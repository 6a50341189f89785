import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HistoryStore } from './history-store.js';
import { saveView, savedViewsDirectory } from './saved-views.js';

const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'sliding-context-store-dir-'));
  directories.push(directory);
  return directory;
}

/** Every path under `path` (itself included) whose mode lets group or others in. */
function openToOthers(path: string): string[] {
  const stat = lstatSync(path);
  const own = (stat.mode & 0o077) === 0 ? [] : [`${path} ${(stat.mode & 0o777).toString(8)}`];
  return stat.isDirectory() ? [...own, ...readdirSync(path).flatMap((name) => openToOthers(join(path, name)))] : own;
}

describe('a PGlite data directory', () => {
  it('initialises an empty folder and keeps every file of the store, its lock and its views from group and others', async () => {
    const dataDir = join(temporaryDirectory(), 'data');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    const store = await HistoryStore.open({ dataDir });
    expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(true);
    expect(openToOthers(dataDir)).toEqual([]);
    expect(openToOthers(`${dataDir}.lock`)).toEqual([]);
    const agentId = await store.createAgent();
    for (let index = 0; index < 20; index++) await store.append(agentId, [{ role: 'user', content: `message ${index} ${'x'.repeat(2_000)}` }]);
    saveView(dataDir, 'outline', agentId, { messages: 20 });
    await store.close();
    expect(openToOthers(dataDir)).toEqual([]);
    expect(openToOthers(savedViewsDirectory(dataDir))).toEqual([]);
    expect(existsSync(`${dataDir}.lock`)).toBe(false);
  }, 300_000);

  it('refuses a folder that holds other files (NOT_A_STORE) and writes nothing in it or beside it', async () => {
    const parent = temporaryDirectory();
    const folder = join(parent, 'examples');
    mkdirSync(folder);
    writeFileSync(join(folder, 'session.json'), '[]');
    await expect(HistoryStore.open({ dataDir: folder })).rejects.toMatchObject({ code: 'NOT_A_STORE', message: expect.stringContaining(folder) });
    expect(readdirSync(folder)).toEqual(['session.json']);
    expect(readdirSync(parent)).toEqual(['examples']);
  });

  it('says the store is locked, not that the folder is no store, while another process is creating the store', async () => {
    const parent = temporaryDirectory();
    const dataDir = join(parent, 'data');
    mkdirSync(dataDir);
    // Half written: files, no PG_VERSION yet, and the lock of a running process (the test's parent).
    writeFileSync(join(dataDir, 'postgresql.conf'), '');
    writeFileSync(`${dataDir}.lock`, JSON.stringify({ pid: process.ppid, command: 'sliding-context import', nonce: 'creating' }));
    await expect(HistoryStore.open({ dataDir })).rejects.toMatchObject({ code: 'STORE_LOCKED', message: expect.stringContaining(`process ${process.ppid} (sliding-context import)`) });
    expect(readdirSync(dataDir)).toEqual(['postgresql.conf']);
  });

  it('with create: false, refuses a missing or empty folder (NO_STORE) and creates nothing', async () => {
    const parent = temporaryDirectory();
    const missing = join(parent, 'missing', 'data');
    await expect(HistoryStore.open({ dataDir: missing, create: false })).rejects.toMatchObject({ code: 'NO_STORE', message: expect.stringContaining(missing) });
    const empty = join(parent, 'empty');
    mkdirSync(empty);
    await expect(HistoryStore.open({ dataDir: empty, create: false })).rejects.toMatchObject({ code: 'NO_STORE' });
    expect(readdirSync(parent)).toEqual(['empty']);
    expect(readdirSync(empty)).toEqual([]);
  });
});
