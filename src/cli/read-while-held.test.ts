import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HistoryStore } from '../store/history-store.js';
import { startLoopbackServer } from '../testing/loopback-server.js';
import { openAiChatStream } from '../testing/openai-chat-stream.js';
import { runCli } from './_test-cli.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const binary = join(root, 'dist/cli/main.js');
const directory = mkdtempSync(join(tmpdir(), 'sc-held-'));
const dataDir = join(directory, 'data');
const flags = ['--data-dir', dataDir];
let agent = '';
const running = new Set<ChildProcessWithoutNullStreams>();

beforeAll(async () => {
  const example = readFileSync(join(root, 'examples/coding-agent-session.json'), 'utf8');
  const imported = await runCli(['import', 'session.json', '--json', ...flags], { files: { 'session.json': example } });
  agent = (JSON.parse(imported.stdout) as { agentId: string }).agentId;
});
afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
  rmSync(directory, { recursive: true, force: true });
});

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The built binary on the store (or on `store`), as a second terminal runs it; killed if it takes over 30 s. */
function cli(args: readonly string[], store = dataDir): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [binary, ...args, '--data-dir', store], { cwd: root, env: { ...process.env, DATABASE_URL: '', SLIDING_CONTEXT_DATA_DIR: '', NO_COLOR: '1' }, encoding: 'utf8', timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

/** A process holding the store (appending to `appendTo` in a loop when given), once it says it is open. */
async function holder(appendTo?: string): Promise<{ child: ChildProcessWithoutNullStreams; output: () => string; close: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/store/_test-hold-child.ts', dataDir, ...(appendTo === undefined ? [] : [appendTo])], { cwd: root });
  running.add(child);
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('OPEN\n')) resolve();
    });
    child.once('exit', () => {
      reject(new Error(`the holder exited: ${output}`));
    });
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => {
    running.delete(child);
    resolve();
  }));
  return {
    child,
    output: () => output,
    close: async () => {
      child.stdin.end();
      await exited;
    },
  };
}

/** What a clear refusal looks like: one `error[CODE]: …` line, no stack trace. */
function expectOneLineError(run: Run): void {
  expect(run.status, run.stderr).toBe(2);
  expect(run.stderr.trim().split('\n')).toHaveLength(1);
  expect(run.stderr).toMatch(/^error\[[A-Z_]+\]: /);
}

describe('a second terminal while another process holds the PGlite store', () => {
  it('history, agents, window --agent, export and search print what they print once the holder is gone', async () => {
    const commands = [['history', agent], ['agents', '--json'], ['window', '--agent', agent], ['export', agent], ['search', agent, 'migration', '--json']];
    const held = await holder();
    const whileHeld: Run[] = [];
    for (const args of commands) whileHeld.push(await cli(args));
    await held.close();
    for (const [index, args] of commands.entries()) {
      const after = await cli(args);
      expect(after.status, after.stderr).toBe(0);
      expect(whileHeld[index], args.join(' ')).toEqual(after);
    }
  }, 180_000);

  it('a write from the second process (mark, fork, compact, uncompact) is carried out by the holder, and the holder\'s own writes lose nothing', async () => {
    const seed = await HistoryStore.open({ dataDir });
    const busy = await seed.createAgent();
    const request = (await seed.history(agent)).find((entry) => entry.message.role === 'user' && typeof entry.message.content === 'string');
    await seed.close();
    const held = await holder(busy);
    const marked = await cli(['mark', agent, 'while-held']);
    const pinned = await cli(['pin', agent, String(request?.seq)]);
    const forked = await cli(['fork', agent, '--json']);
    const compacted = await cli(['compact', agent, '--json']);
    const uncompacted = await cli(['uncompact', agent, '--json']);
    await held.close();
    expect(marked.status, marked.stderr).toBe(0);
    expect(pinned.status, pinned.stderr).toBe(0);
    expect(pinned.stdout).toMatch(new RegExp(`^pinned: seq ${String(request?.seq)}\n`));
    expect(forked.status, forked.stderr).toBe(0);
    expect(compacted.status, compacted.stderr).toBe(0);
    expect(JSON.parse(uncompacted.stdout)).toMatchObject({ agentId: agent, undone: { summarizer: 'digest', coveredExchanges: 59 }, restored: null });
    const acknowledged = [...held.output().matchAll(/ACK (\d+)/g)].map((match) => Number(match[1]));
    const store = await HistoryStore.open({ dataDir });
    try {
      const history = await store.history(busy);
      expect(history.map((entry) => entry.seq)).toEqual(Array.from({ length: history.length }, (_, index) => index + 1));
      expect(history.length).toBe(Math.max(...acknowledged));
      expect((await store.history(agent)).at(-2)?.message).toEqual({ role: 'event', kind: 'mark', label: 'while-held' });
      expect((await store.history(agent)).at(-1)?.message).toMatchObject({ role: 'event', kind: 'pin', data: { back: expect.any(Number) as number } });
      expect((await store.listAgents()).filter((listed) => listed.parentId === agent)).toHaveLength(1);
      expect((await store.ranges(agent, { kind: ['summary', 'uncompact'] })).map((range) => range.kind)).toEqual(['summary', 'uncompact']);
    } finally {
      await store.close();
    }
  }, 180_000);

  it('a holder that does not serve (an older version) is named by its pid and command', async () => {
    const held = await holder();
    try {
      rmSync(`${dataDir}.sock`);
      const refused = await cli(['agents']);
      expectOneLineError(refused);
      expect(refused.stderr).toContain(`error[STORE_LOCKED]: The store ${dataDir} is in use by process ${held.child.pid} (_test-hold-child.ts ${dataDir})`);
    } finally {
      await held.close();
    }
  }, 60_000);

  it('a holder that exits while a reader is connected: the reader finishes or fails in one line, never hangs', async () => {
    const expected = await cli(['export', agent]);
    expect(expected.status).toBe(0);
    for (const [round, delay] of [0, 60, 300, 600].entries()) {
      const held = await holder();
      const reading = cli(['export', agent]);
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (round % 2 === 0) {
        await held.close();
      } else {
        held.child.kill('SIGKILL');
      }
      const read = await reading;
      expect(read.status, `round ${round}: ${read.stderr}`).not.toBeNull();
      if (read.status === 0) expect(read.stdout).toBe(expected.stdout);
      else expectOneLineError(read);
    }
  }, 180_000);
});

describe('a second terminal while a large import closes the store', () => {
  it('a command started once the import printed its result waits for it to let the store go, then runs', async () => {
    const largeDir = join(directory, 'large');
    const file = join(directory, 'large.json');
    const messages = Array.from({ length: 3000 }, (_, index) => [
      { role: 'user', content: `question ${index}: ${'what does the build step do here? '.repeat(20)}` },
      { role: 'assistant', content: `answer ${index}: ${'it compiles the sources and links them. '.repeat(20)}` },
    ]).flat();
    writeFileSync(file, JSON.stringify(messages));
    const importing = spawn(process.execPath, [binary, 'import', file, '--data-dir', largeDir], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: '', SLIDING_CONTEXT_DATA_DIR: '', NO_COLOR: '1' },
    });
    running.add(importing);
    let importOutput = '';
    importing.stdout.on('data', (chunk: Buffer) => (importOutput += chunk.toString('utf8')));
    importing.stderr.on('data', (chunk: Buffer) => (importOutput += chunk.toString('utf8')));
    const state = { closed: false };
    const exited = new Promise<number | null>((resolve) => importing.once('exit', (code) => {
      state.closed = true;
      running.delete(importing);
      resolve(code);
    }));
    for (const until = Date.now() + 150_000; !importOutput.includes('imported 6,000 messages') && !state.closed && Date.now() < until;) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(importOutput).toContain('imported 6,000 messages');
    // The result is out, and the import still holds the store while it writes it out and closes.
    expect(existsSync(`${largeDir}.lock`)).toBe(true);
    const runs = await Promise.all([cli(['agents', '--json'], largeDir), cli(['agents', '--json'], largeDir)]);
    while (!state.closed) runs.push(await cli(['agents', '--json'], largeDir));
    expect(await exited, importOutput).toBe(0);
    for (const run of runs) {
      expect(run.status, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject([{ messages: 6000 }]);
    }
  }, 240_000);
});

describe('a second terminal while a chat runs', () => {
  it('reads the chat\'s agent through the chat, which serves the store for its whole run', async () => {
    const server = await startLoopbackServer(() => ({ status: 200, sse: openAiChatStream({ text: 'Hello from the model' }) }));
    const chatDir = join(directory, 'chat');
    const chat = spawn(process.execPath, [binary, 'chat', '--base-url', `${server.url}/v1`, '--data-dir', chatDir], {
      cwd: directory,
      env: { ...process.env, OPENAI_API_KEY: 'test', DATABASE_URL: '', NO_COLOR: '1' },
    });
    running.add(chat);
    let output = '';
    chat.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    chat.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const exited = new Promise<void>((resolve) => chat.once('exit', () => {
      resolve();
    }));
    const waitFor = async (text: string) => {
      for (const until = Date.now() + 90_000; !output.includes(text) && Date.now() < until;) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(output).toContain(text);
    };
    const second = (args: readonly string[]) => new Promise<Run>((resolve) => {
      execFile(process.execPath, [binary, ...args, '--data-dir', chatDir], { cwd: root, env: { ...process.env, DATABASE_URL: '', NO_COLOR: '1' }, encoding: 'utf8', timeout: 30_000 }, (error, stdout, stderr) => {
        resolve({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
      });
    });
    try {
      await waitFor('›');
      chat.stdin.write('hello\n');
      await waitFor('Hello from the model');
      const agents = await second(['agents', '--json']);
      expect(agents.status, agents.stderr).toBe(0);
      const [listed] = JSON.parse(agents.stdout) as { agentId: string; messages: number }[];
      expect(listed?.messages).toBeGreaterThanOrEqual(2);
      const exported = await second(['export', listed?.agentId ?? '', '--format', 'jsonl']);
      expect(exported.status, exported.stderr).toBe(0);
      expect(exported.stdout).toContain('Hello from the model');
      // A write to the chat's own agent is carried out by the chat; its next message is refused once, then it goes on.
      const marked = await second(['mark', listed?.agentId ?? '', 'from-elsewhere']);
      expect(marked.status, marked.stderr).toBe(0);
      chat.stdin.write('again\n');
      await waitFor('another writer appended first');
      chat.stdin.write('once more\n');
      for (const until = Date.now() + 60_000; output.split('Hello from the model').length < 3 && Date.now() < until;) await new Promise((resolve) => setTimeout(resolve, 50));
      const marks = await second(['marks', listed?.agentId ?? '']);
      expect(marks.stdout).toContain('from-elsewhere');
      chat.stdin.end();
      await exited;
      expect(output.split('Hello from the model')).toHaveLength(3);
      expect(existsSync(`${chatDir}.sock`)).toBe(false);
    } finally {
      chat.kill('SIGKILL');
      running.delete(chat);
      await server.close();
    }
  }, 180_000);
});
