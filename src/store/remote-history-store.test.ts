import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Message } from '../message/message.js';
import { describeHistoryStoreContract } from './history-store.contract.js';
import { HistoryStore } from './history-store.js';
import { openStoreOrConnect } from './open-store-or-connect.js';
import { RemoteHistoryStore } from './remote-history-store.js';
import { storeSocketPath } from './serve-store.js';

const directories: string[] = [];
const temporaryDirectory = () => {
  const directory = mkdtempSync(join(tmpdir(), 'sc-remote-'));
  directories.push(directory);
  return join(directory, 'data');
};
const holders: HistoryStore[] = [];
afterAll(async () => {
  for (const holder of holders) await holder.close();
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

/** A store reached through the socket of the store this process holds. */
async function throughHolder(dataDir = temporaryDirectory()): Promise<{ holder: HistoryStore; remote: HistoryStore; dataDir: string }> {
  const holder = await HistoryStore.open({ dataDir });
  holders.push(holder);
  const remote = await RemoteHistoryStore.connect(dataDir, undefined);
  if (remote === undefined) throw new Error('the holder does not serve its store');
  return { holder, remote, dataDir };
}

describeHistoryStoreContract('PGlite through the process holding it', async () => (await throughHolder()).remote, { concurrency: true, abortsMidway: false });

const user = (content: string): Message => ({ role: 'user', content });

describe('serving a held PGlite directory', () => {
  it('the socket is the owner\'s only, replaces one a killed holder left, and goes with the holder', async () => {
    const dataDir = temporaryDirectory();
    writeFileSync(storeSocketPath(dataDir), 'left by a killed holder');
    const holder = await HistoryStore.open({ dataDir });
    const socket = statSync(storeSocketPath(dataDir));
    expect(socket.isSocket()).toBe(true);
    expect(socket.mode & 0o777).toBe(0o600);
    await holder.close();
    expect(existsSync(storeSocketPath(dataDir))).toBe(false);
  });

  it('a directory whose socket path would be too long opens unserved, leaving nothing beside it', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'sc-remote-'));
    directories.push(parent);
    const dataDir = join(parent, 'x'.repeat(100));
    const holder = await HistoryStore.open({ dataDir });
    expect(readdirSync(parent).sort()).toEqual([basename(dataDir), `${basename(dataDir)}.lock`]);
    await expect(openStoreOrConnect({ dataDir })).rejects.toMatchObject({ code: 'STORE_LOCKED' });
    await holder.close();
    expect(readdirSync(parent)).toEqual([basename(dataDir)]);
  });

  it('a second opener in this process is refused; one whose holder does not serve is told its pid and command', async () => {
    const dataDir = temporaryDirectory();
    const holder = await HistoryStore.open({ dataDir });
    await expect(openStoreOrConnect({ dataDir })).rejects.toMatchObject({ code: 'STORE_LOCKED', message: expect.stringContaining('already open in this process') });
    await holder.close();
    // A holder of an older version: its lock names a running process, and no socket answers.
    writeFileSync(`${dataDir}.lock`, JSON.stringify({ pid: process.ppid, command: 'sliding-context chat', nonce: 'older' }));
    writeFileSync(storeSocketPath(dataDir), 'not a socket');
    await expect(openStoreOrConnect({ dataDir })).rejects.toMatchObject({ code: 'STORE_LOCKED', message: expect.stringContaining(`process ${process.ppid} (sliding-context chat)`) });
  });

  it('the holder\'s own appends and remote transactions that commit or roll back never mix: nothing lost, nothing extra', async () => {
    const { holder, remote } = await throughHolder();
    const own = await holder.createAgent();
    const other = await holder.createAgent();
    const rounds = 150;
    const holderWrites = (async () => {
      for (let index = 0; index < rounds; index++) await holder.append(own, [user(`holder ${index}`)]);
    })();
    const remoteWrites = (async () => {
      let stale = 0;
      for (let index = 0; index < rounds; index++) {
        const lastSeq = await remote.lastSeq(other);
        await remote.append(other, [user(`remote ${index}`), user(`remote ${index} again`)], { expectedLastSeq: lastSeq });
        // Refused inside its transaction, which rolls back.
        await remote.append(other, [user('never stored')], { expectedLastSeq: lastSeq }).catch(() => stale++);
      }
      return stale;
    })();
    const [, stale] = await Promise.all([holderWrites, remoteWrites]);
    expect(stale).toBe(rounds);
    const ownHistory = await holder.history(own);
    expect(ownHistory.map((entry) => entry.message)).toEqual(Array.from({ length: rounds }, (_, index) => user(`holder ${index}`)));
    expect(ownHistory.map((entry) => entry.seq)).toEqual(Array.from({ length: rounds }, (_, index) => index + 1));
    const otherHistory = await remote.history(other);
    expect(otherHistory.map((entry) => entry.message)).toEqual(Array.from({ length: rounds }, (_, index) => [user(`remote ${index}`), user(`remote ${index} again`)]).flat());
    await remote.close();
  }, 120_000);

  it('a holder that closes: what it did not run, reads and writes, runs on the store opened here', async () => {
    const { holder, remote, dataDir } = await throughHolder();
    const agent = await remote.createAgent();
    await holder.close();
    expect(await remote.history(agent)).toEqual([]);
    await remote.append(agent, [user('here')]);
    expect((await remote.history(agent)).map((entry) => entry.message)).toEqual([user('here')]);
    await remote.close();
    const reopened = await HistoryStore.open({ dataDir });
    expect(await reopened.lastSeq(agent)).toBe(1);
    await reopened.close();
  });
});
