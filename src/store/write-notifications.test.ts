import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createServerDatabase } from '../testing/server-database.js';
import { HistoryStore } from './history-store.js';
import { announcementOf, WRITES_CHANNEL } from './write-notifications.js';

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

/** Starts `store` listening; `listened()` tells whether it is listening yet. */
function startListening(store: HistoryStore, listener: (agentId: string) => void) {
  let listened = false;
  const stopping = store.onWrite(listener).then((stop) => {
    listened = true;
    return stop;
  });
  return { stopping, listened: () => listened };
}

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

  it('a write sends its NOTIFY only while some store listens', async () => {
    const database = await createServerDatabase(serverUrl ?? '', 'notify_when_heard');
    const [reader, writer] = await Promise.all([HistoryStore.open({ databaseUrl: database.url }), HistoryStore.open({ databaseUrl: database.url })]);
    // LISTENs on the channel without telling the writers: it hears only what is sent for a store that listens.
    const bystander = new pg.Client({ connectionString: database.url });
    const overheard: string[] = [];
    bystander.on('notification', (message) => overheard.push(message.payload ?? ''));
    try {
      await bystander.connect();
      await bystander.query(`listen ${WRITES_CHANNEL}`);
      const settle = () => new Promise((resolve) => setTimeout(resolve, 300));
      // An append from the agent's tip (a direct transaction) and a fork and a rename (Kysely's transactions).
      const unheard = await writer.createAgent({}, { name: 'unheard' });
      await writer.append(unheard, [{ role: 'user', content: 'nobody listens' }]);
      await writer.append(unheard, [{ role: 'assistant', content: 'still nobody' }]);
      await writer.renameAgent(await writer.fork(unheard), 'unheard fork');
      await settle();
      expect(overheard).toEqual([]);

      const { listening, all } = heard(reader, 3);
      const stop = await listening;
      await writer.append(unheard, [{ role: 'user', content: 'now someone does' }]);
      const child = await writer.fork(unheard);
      await writer.renameAgent(child, 'heard fork');
      expect(await all).toEqual([unheard, child, child]);
      await settle();
      expect(overheard).toEqual([unheard, child, child]);

      await stop();
      await writer.append(unheard, [{ role: 'assistant', content: 'nobody again' }]);
      await settle();
      expect(overheard).toEqual([unheard, child, child]);
    } finally {
      await bystander.end();
      await Promise.all([reader.close(), writer.close()]);
      await database.drop();
    }
  });

  it('a store that starts listening while a write is between its two announcing statements waits for it, and hears it', async () => {
    const database = await createServerDatabase(serverUrl ?? '', 'notify_between');
    const [reader, other] = await Promise.all([HistoryStore.open({ databaseUrl: database.url }), HistoryStore.open({ databaseUrl: database.url })]);
    const writer = new pg.Client({ connectionString: database.url });
    try {
      await writer.connect();
      const agent = await other.createAgent();
      const [holds, notifies] = announcementOf('in flight');
      if (holds === undefined || notifies === undefined) throw new Error('a write announces itself in two statements');
      await writer.query('begin');
      await writer.query(holds.sql, [...holds.parameters]);
      const ids: string[] = [];
      const listening = startListening(reader, (agentId) => ids.push(agentId));
      // The store has taken its lock (shared, on the second key 1) and waits.
      const lockTaken = () => writer.query(`select 1 from pg_locks where locktype = 'advisory' and objid = 1 and objsubid = 2 and mode = 'ShareLock' and granted
        and database = (select oid from pg_database where datname = current_database())`);
      for (let waited = 0; (await lockTaken()).rows.length === 0 && waited < 5_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
      // Another store's writes go on meanwhile: a new listener waits for the open write without holding up the rest.
      const appended = other.append(agent, [{ role: 'user', content: 'not held up' }]).then(() => 'appended');
      expect(await Promise.race([appended, new Promise((resolve) => setTimeout(resolve, 5_000, 'held up'))])).toBe('appended');
      expect(listening.listened()).toBe(false);
      // Decided after the store took its lock: it notifies.
      expect((await writer.query(notifies.sql, [...notifies.parameters])).rows).toHaveLength(1);
      await writer.query('commit');
      const stop = await listening.stopping;
      for (let waited = 0; !ids.includes('in flight') && waited < 5_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(ids).toContain('in flight');
      await stop();
    } finally {
      await writer.end();
      await Promise.all([reader.close(), other.close()]);
      await database.drop();
    }
  });

  it('a store that starts listening while a write that sent no NOTIFY is uncommitted waits for its commit before it reads anything', async () => {
    const database = await createServerDatabase(serverUrl ?? '', 'notify_barrier');
    const reader = await HistoryStore.open({ databaseUrl: database.url });
    const writer = new pg.Client({ connectionString: database.url });
    try {
      await writer.connect();
      // A write's end as the store sends it, held open: nobody listened when it decided, so it sent no NOTIFY.
      await writer.query('begin');
      const announced: unknown[] = [];
      for (const statement of announcementOf('in flight')) announced.push(...(await writer.query(statement.sql, [...statement.parameters])).rows);
      expect(announced).toEqual([{ pg_advisory_xact_lock_shared: '' }]);
      const listening = startListening(reader, () => undefined);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(listening.listened()).toBe(false);
      await writer.query('commit');
      const stop = await listening.stopping;
      expect(listening.listened()).toBe(true);
      await stop();
    } finally {
      await writer.end();
      await reader.close();
      await database.drop();
    }
  });
});
if (!serverUrl) console.warn('The PostgreSQL server half of the write notification tests is skipped: DATABASE_URL is not set.');
