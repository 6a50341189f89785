import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, existsSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type LoopbackAnswer, startLoopbackServer } from '../../testing/loopback-server.js';
import { openAiChatStream } from '../../testing/openai-chat-stream.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'sliding-context-chat-signal-'));
const fifo = join(work, 'pipe');
execFileSync('mkfifo', [fifo]);
// The model reads the named pipe, then starts an answer and stalls in the middle of it.
const answers: LoopbackAnswer[] = [
  { status: 200, sse: openAiChatStream({ toolCalls: [{ id: 'call_pipe', name: 'read_file', arguments: '{"path":"pipe"}' }] }) },
  { status: 200, sse: openAiChatStream({ text: 'Reading the pipe' }).split('\n\n').slice(0, 2).join('\n\n') + '\n\n', hold: true },
];
const server = await startLoopbackServer(() => answers.shift() ?? { status: 500, body: { error: { message: 'nothing scripted' } } });
afterAll(async () => {
  // Lets a read that blocked on the pipe end, so that nothing is left waiting.
  try {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // No reader: nothing blocked.
  }
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

describe('sliding-context chat and SIGTERM', () => {
  it('ends within 2 s and releases the store lock, after a tool that read a named pipe and in the middle of a stalled stream', async () => {
    const child = spawn(
      process.execPath,
      ['--import', pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href, join(root, 'src/cli/main.ts'), 'chat', '--base-url', `${server.url}/v1`, '--data-dir', join(work, 'store')],
      { cwd: work, env: { ...process.env, OPENAI_API_KEY: 'test', DATABASE_URL: '', NO_COLOR: '1' }, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => {
      resolve(code);
    }));
    const waitFor = async (text: string, timeoutMs: number) => {
      for (const until = Date.now() + timeoutMs; !output.includes(text) && Date.now() < until;) await new Promise((resolve) => setTimeout(resolve, 50));
      return output.includes(text);
    };
    try {
      expect(await waitFor('›', 90_000)).toBe(true);
      expect(existsSync(join(work, 'store.lock'))).toBe(true);
      child.stdin.write('read the pipe\n');
      // A chat stuck reading the pipe never gets to the answer: it is sent SIGTERM there all the same.
      await waitFor('Reading', 15_000);
      const sent = performance.now();
      child.kill('SIGTERM');
      const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => {
        resolve('still running 2 s after SIGTERM');
      }, 2_000))]);
      expect({ code, output }).toEqual({ code: 143, output: expect.stringContaining('→ read_file: failed: pipe is a named pipe; only regular files are read\n  Reading') });
      expect(performance.now() - sent).toBeLessThan(2_000);
      expect(existsSync(join(work, 'store.lock'))).toBe(false);
    } finally {
      child.kill('SIGKILL');
    }
  }, 150_000);
});
