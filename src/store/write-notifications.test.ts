import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createServerDatabase } from '../testing/server-database.js';
import { HistoryStore } from './history-store.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Makes one write of each kind from another process; the ids it wrote, in order. */
async function writeFromAnotherProcess(location: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/store/_test-write-child.ts', location, 'all'], { cwd: root });
  return JSON.parse(stdout) as string[];
}

const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

/** Resolves with the agent ids heard until `count` arrived (or rejects after `timeoutMs`). */
function heard(store: HistoryStore, count: number, timeoutMs = 5_000) {
  const ids: string[] = [];
  let done: (ids: string[]) => void = () => undefined;
  const all = new Promise<string[]>((resolve, reject) => {
    done = resolve;
    const fail = () => {
      reject(new Error(`heard ${ids.length} of ${count} writes: ${ids.join(', ')}`));
    };
    setTimeout(fail, timeoutMs).unref();
  });
  const listening = store.onWrite((agentId) => {
    ids.push(agentId);
    if (ids.length === count) done(ids);
  });
  return { listening, all };
}

/** Every kind of write, made through `writer`, is heard by `reader` with the agent it changed. */
async function expectWritesHeard(reader: HistoryStore, writer: HistoryStore) {
  const { listening, all } = heard(reader, 5);
  const stop = await listening;
  const agent = await writer.createAgent({}, { name: 'noted' });
  const { firstSeq } = await writer.append(agent, [{ role: 'user', content: 'hello' }]);
  const child = await writer.fork(agent);
  await writer.recordRanges(agent, [{ kind: 'evicted', first: { agentId: agent, seq: firstSeq }, last: { agentId: agent, seq: firstSeq } }]);
  await writer.renameAgent(agent, 'renamed');
  expect(await all).toEqual([agent, agent, child, agent, agent]);
  await stop();
  // Stopped: a later write is not heard (nothing throws either).
  const after = heard(reader, 1, 300);
  await after.listening.then((stopAgain) => stopAgain());
  await writer.append(agent, [{ role: 'assistant', content: 'after' }]);
  await expect(after.all).rejects.toThrow('heard 0 of 1');
}

describe('write notifications on a PGlite directory', () => {
  it('the holder hears its own writes and those of another process served through it', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'sliding-context-notify-'));
    directories.push(directory);
    const dataDir = join(directory, 'data');
    const holder = await HistoryStore.open({ dataDir });
    try {
      await expectWritesHeard(holder, holder);
      const { listening, all } = heard(holder, 5, 30_000);
      const stop = await listening;
      const written = await writeFromAnotherProcess(dataDir);
      expect(await all).toEqual(written);
      await stop();
    } finally {
      await holder.close();
    }
  });
});

const serverUrl = process.env.DATABASE_URL;
describe.skipIf(!serverUrl)('write notifications on a server', () => {
  it('a store hears the writes of a second store instance and of another process through LISTEN/NOTIFY', async () => {
    const database = await createServerDatabase(serverUrl ?? '', 'notify');
    const [reader, writer] = await Promise.all([HistoryStore.open({ databaseUrl: database.url }), HistoryStore.open({ databaseUrl: database.url })]);
    try {
      await expectWritesHeard(reader, writer);
      await expectWritesHeard(reader, reader);
      const { listening, all } = heard(reader, 5, 30_000);
      const stop = await listening;
      const written = await writeFromAnotherProcess(database.url);
      expect(await all).toEqual(written);
      await stop();
    } finally {
      await Promise.all([reader.close(), writer.close()]);
      await database.drop();
    }
  });
});
if (!serverUrl) console.warn('The PostgreSQL server half of the write notification tests is skipped: DATABASE_URL is not set.');
