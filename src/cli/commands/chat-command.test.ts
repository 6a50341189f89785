import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { HistoryStore } from '../../store/history-store.js';
import type { CliIo } from '../cli-io.js';
import { runChatCommand } from './chat-command.js';
import type { ChatFlags } from './chat-command-line.js';

const work = mkdtempSync(join(tmpdir(), 'sliding-context-chat-command-'));
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

/** Runs `chat` in-process on typed lines, off a terminal; returns what it wrote. */
async function runChat(flags: ChatFlags, typed: string | ((input: PassThrough, screen: () => string) => Promise<void>)): Promise<string> {
  let written = '';
  // Typed lines come through a pipe; keys pressed, through a terminal.
  const input = Object.assign(new PassThrough(), { isTTY: typeof typed !== 'string' });
  if (typeof typed === 'string') input.end(typed);
  const output = Object.assign(new Writable({
    write(chunk: Buffer, _encoding, done) {
      written += chunk.toString();
      done();
    },
  }), { isTTY: typeof typed !== 'string', columns: 100 });
  const fail = () => Promise.reject(Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' }));
  const io: CliIo = {
    stdout: { write: (text: string) => (written += text) },
    stderr: { write: (text: string) => (written += text) },
    env: {},
    readText: fail,
    readLines: () => {
      throw new Error('not read by chat');
    },
    fileSize: fail,
    readStdin: fail,
    terminal: { input, output },
    cwd: work,
    onInterrupt: () => () => undefined,
  };
  const running = runChatCommand(flags, io);
  if (typeof typed !== 'string') await typed(input, () => written);
  await running;
  return written;
}

describe('chat', () => {
  it('names the server it could not reach, and prints a resume command that names the data folder, the server and the model it ran with', async () => {
    const dataDir = join(work, 'my data');
    const flags = { dataDir, provider: 'anthropic', model: 'local-model', baseUrl: 'http://127.0.0.1:9/v1', new: true };
    const written = await runChat(flags, 'hello\n/exit\n');
    // Nothing listens there: the error names the server tried.
    expect(written).toContain('error: Connection error reaching http://127.0.0.1:9/v1: check --base-url and that the server is up.\n');
    const agentId = /agent ([0-9a-f-]{36})/.exec(written)?.[1];
    expect(agentId).toBeDefined();
    expect(written).toContain(`bye: resume with \`sliding-context chat --agent ${agentId ?? ''} --data-dir '${dataDir}' --provider anthropic --model local-model --base-url http://127.0.0.1:9/v1\``);
    // The command works as printed: it opens the same agent in the same store.
    const again = await runChat({ dataDir, provider: 'anthropic', model: 'local-model', baseUrl: 'http://127.0.0.1:9/v1', agent: agentId }, '');
    expect(again).toContain(`agent ${agentId ?? ''} · anthropic/local-model`);
  }, 60_000);

  it('refuses a --base-url that is no http(s) address before it opens the store', async () => {
    const dataDir = join(work, 'bad-base-url');
    for (const baseUrl of ['not a url', 'file:///etc/passwd']) {
      await expect(runChat({ dataDir, new: true, baseUrl }, 'hello\n')).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringContaining('--base-url') });
    }
    expect(existsSync(dataDir)).toBe(false);
  });

  it('off a terminal, stdin that ends before any line is refused (NOT_A_TERMINAL) and makes no agent', async () => {
    const dataDir = join(work, 'no-input');
    await expect(runChat({ dataDir, new: true }, '')).rejects.toMatchObject({ code: 'NOT_A_TERMINAL' });
    await expect(runChat({ dataDir }, '')).rejects.toMatchObject({ code: 'NOT_A_TERMINAL' });
    const store = await HistoryStore.open({ dataDir, create: false });
    try {
      expect(await store.listAgents()).toEqual([]);
    } finally {
      await store.close();
    }
  }, 60_000);

  it('asks before leaving on Ctrl-C at an empty prompt, and stays on no', async () => {
    const written = await runChat({ dataDir: join(work, 'ctrl-c'), new: true }, async (input, screen) => {
      const question = (count: number) => expect.poll(() => screen().split('Leave the chat? (y/N) ').length - 1, { timeout: 30_000 }).toBe(count);
      await expect.poll(screen, { timeout: 30_000 }).toContain('› ');
      input.write('\u0003');
      await question(1);
      input.write('n\r');
      input.write('/model\r');
      await expect.poll(screen).toContain('model: gpt-4o');
      input.write('\u0003');
      await question(2);
      input.write('y\r');
    });
    // The chat went on after "n": /model answered, and it ended only after "y".
    expect(written.indexOf('model: gpt-4o')).toBeGreaterThan(written.indexOf('Leave the chat? (y/N) '));
    expect(written).toContain('bye: resume with');
  }, 60_000);
});
