import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Message } from '../message/message.js';
import { describeHistoryStoreContract } from './history-store.contract.js';
import { HistoryStore } from './history-store.js';
import { openStoreOrConnect } from './open-store-or-connect.js';
import { RemoteHistoryStore } from './remote-history-store.js';
import { storeSocketPath } from './serve-store.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
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

  it('a holder still opening the store, whose lock says it will serve it, is waited for; the lock a store writes says so', async () => {
    const dataDir = temporaryDirectory();
    await (await HistoryStore.open({ dataDir })).close();
    writeFileSync(`${dataDir}.lock`, JSON.stringify({ pid: process.ppid, command: 'sliding-context agents', nonce: 'opening', serves: true }));
    const released = new Promise<void>((resolve) => setTimeout(() => {
      rmSync(`${dataDir}.lock`);
      resolve();
    }, 500));
    const store = await openStoreOrConnect({ dataDir });
    await released;
    expect(await store.listAgents()).toEqual([]);
    await store.close();
    // The lock a store writes says so.
    const holder = await HistoryStore.open({ dataDir });
    expect(JSON.parse(readFileSync(`${dataDir}.lock`, 'utf8'))).toMatchObject({ pid: process.pid, serves: true });
    await holder.close();
  });

  it('a holder whose socket is there but no longer answers is closing: the opener waits for the lock to go, then opens the store', async () => {
    const dataDir = temporaryDirectory();
    await (await HistoryStore.open({ dataDir })).close();
    // What a closing holder leaves while it writes the store out: its lock, and a socket nobody listens on.
    writeFileSync(`${dataDir}.lock`, JSON.stringify({ pid: process.ppid, command: 'sliding-context import', nonce: 'closing' }));
    const bound = join(dirname(dataDir), 'bound');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(bound, resolve));
    renameSync(bound, storeSocketPath(dataDir));
    await new Promise((resolve) => server.close(resolve));
    expect(statSync(storeSocketPath(dataDir)).isSocket()).toBe(true);
    const released = new Promise<void>((resolve) => setTimeout(() => {
      rmSync(storeSocketPath(dataDir));
      rmSync(`${dataDir}.lock`);
      resolve();
    }, 500));
    const store = await openStoreOrConnect({ dataDir });
    await released;
    expect(store).not.toBeInstanceOf(RemoteHistoryStore);
    expect(await store.listAgents()).toEqual([]);
    await store.close();
  });

  it('a holder that stops serving while a reader is connected waits for it, even with nothing else to keep it running', async () => {
    const dataDir = temporaryDirectory();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/store/_test-serve-child.ts', dataDir], { cwd: root });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    for (const until = Date.now() + 30_000; !output.includes('SERVING\n') && Date.now() < until;) await new Promise((resolve) => setTimeout(resolve, 20));
    const remote = await RemoteHistoryStore.connect(dataDir, undefined);
    expect(await remote?.listAgents()).toEqual([]);
    child.stdin.end();
    expect(await exited, output).toBe(0);
    expect(output).toContain('STOPPED\n');
    await remote?.close();
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

  /**
   * A stand-in holder of `dataDir`: what it does with the first request is `onRequest`'s; the
   * directory is let go (socket, then lock) 300 ms after it closed the connection.
   */
  async function standInHolder(dataDir: string, onRequest: (socket: Socket) => void): Promise<{ requests: string[] }> {
    writeFileSync(`${dataDir}.lock`, JSON.stringify({ pid: process.ppid, command: 'sliding-context import', nonce: 'stand-in' }));
    const bound = join(dirname(dataDir), `bound-${basename(dataDir)}`);
    const requests: string[] = [];
    const server = createServer((socket) => {
      socket.setEncoding('utf8');
      socket.once('data', (line: string) => {
        requests.push(line);
        onRequest(socket);
        server.close();
        setTimeout(() => {
          rmSync(storeSocketPath(dataDir), { force: true });
          rmSync(`${dataDir}.lock`);
        }, 300);
      });
    });
    await new Promise<void>((resolve) => server.listen(bound, resolve));
    renameSync(bound, storeSocketPath(dataDir));
    return { requests };
  }

  /** A store directory with one agent, closed. */
  async function storeWithAgent(): Promise<{ dataDir: string; agent: string }> {
    const dataDir = temporaryDirectory();
    const made = await HistoryStore.open({ dataDir });
    const agent = await made.createAgent();
    await made.close();
    return { dataDir, agent };
  }

  it('a write the holder did not run (it said it stops serving, or never said it serves) runs here once the holder let go', async () => {
    const said = { serving: `${JSON.stringify({ serving: true })}\n`, closing: `${JSON.stringify({ closing: true })}\n` };
    // Stopping after its last answer: the request came after it.
    // Cut before it ever said it serves: the connection waited to be accepted as the holder stopped listening.
    for (const [what, cut] of [['stops serving', (socket: Socket) => socket.end(said.serving + said.closing)], ['never served', (socket: Socket) => socket.destroy()]] as const) {
      const { dataDir, agent } = await storeWithAgent();
      const holder = await standInHolder(dataDir, cut);
      const remote = await RemoteHistoryStore.connect(dataDir, { pid: process.ppid, command: 'sliding-context import' });
      if (remote === undefined) throw new Error('the stand-in holder was not reached');
      await remote.append(agent, [user(what)]);
      expect(holder.requests).toHaveLength(1);
      expect((await remote.history(agent)).map((entry) => entry.message), what).toEqual([user(what)]);
      await remote.close();
    }
  });

  it('a write a holder went away with, after it said it serves and before it answered, is refused: it may have run', async () => {
    const { dataDir, agent } = await storeWithAgent();
    await standInHolder(dataDir, (socket) => socket.end(`${JSON.stringify({ serving: true })}\n`));
    const remote = await RemoteHistoryStore.connect(dataDir, { pid: process.ppid, command: 'sliding-context import' });
    if (remote === undefined) throw new Error('the stand-in holder was not reached');
    await expect(remote.append(agent, [user('maybe')])).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', message: expect.stringContaining('closed it before answering') });
    await remote.close();
  });

  it('a read a holder did not run, when another process took the directory meanwhile, runs through that process', async () => {
    const { dataDir } = await storeWithAgent();
    let taker: ChildProcess | undefined;
    let output = '';
    // The holder says it stops serving; before it lets go, another process serves the directory and holds its lock.
    const bound = join(dirname(dataDir), 'bound-first');
    writeFileSync(`${dataDir}.lock`, JSON.stringify({ pid: process.ppid, command: 'sliding-context import', nonce: 'first' }));
    const first = createServer((socket) => {
      socket.once('data', () => {
        socket.end(`${JSON.stringify({ serving: true })}\n${JSON.stringify({ closing: true })}\n`);
        first.close();
        taker = spawn(process.execPath, ['--import', 'tsx', 'src/store/_test-serve-child.ts', dataDir], { cwd: root });
        taker.stdout?.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes('SERVING\n') && taker?.pid !== undefined) {
            writeFileSync(`${dataDir}.lock`, JSON.stringify({ pid: taker.pid, command: 'sliding-context serve', nonce: 'taker', serves: true }));
          }
        });
      });
    });
    await new Promise<void>((resolve) => first.listen(bound, resolve));
    renameSync(bound, storeSocketPath(dataDir));
    const remote = await openStoreOrConnect({ dataDir });
    expect(remote).toBeInstanceOf(RemoteHistoryStore);
    // The stand-in that took over knows no agent; the directory itself holds one.
    expect(await remote.listAgents()).toEqual([]);
    await remote.close();
    taker?.stdin?.end();
    await new Promise((resolve) => taker?.once('exit', resolve));
    expect(output).toContain('STOPPED\n');
    rmSync(`${dataDir}.lock`);
  });

  it('a holder says it serves each reader, answers, and says it stops after its last answer', async () => {
    const dataDir = temporaryDirectory();
    const holder = await HistoryStore.open({ dataDir });
    const reader = createConnection(storeSocketPath(dataDir));
    reader.setEncoding('utf8');
    let heard = '';
    const answered = new Promise<void>((resolve) => {
      reader.on('data', (chunk: string) => {
        heard += chunk;
        if (heard.includes('"id":1')) resolve();
      });
    });
    const ended = new Promise((resolve) => reader.once('close', resolve));
    await new Promise((resolve) => reader.once('connect', resolve));
    reader.write(`${JSON.stringify({ id: 1, operation: 'listAgents', args: [] })}\n`);
    await answered;
    await holder.close();
    await ended;
    const lines = heard.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual([{ serving: true }, { id: 1, result: [] }, { closing: true }]);
  });

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
