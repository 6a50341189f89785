import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chatToolDefinitions, runChatTool, type ToolContext } from './chat-tools.js';

const root = mkdtempSync(join(tmpdir(), 'sliding-context-tools-'));
const work = join(root, 'project');
mkdirSync(join(work, 'src'), { recursive: true });
mkdirSync(join(work, 'node_modules', 'dep'), { recursive: true });
writeFileSync(join(work, 'src', 'app.ts'), 'export const answer = 42;\nexport const question = "?";\n');
writeFileSync(join(work, 'node_modules', 'dep', 'index.js'), 'export const answer = 0;\n');
writeFileSync(join(root, 'secret.txt'), 'outside the project\n');
symlinkSync(join(root, 'secret.txt'), join(work, 'link.txt'));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const context = (overrides: Partial<ToolContext> = {}): ToolContext => ({ cwd: work, allowCommands: false, confirm: () => Promise.resolve(false), ...overrides });

describe('the chat tools', () => {
  it('read_file reads inside the working directory and refuses anything outside it, symlinks included', async () => {
    expect(await runChatTool('read_file', { path: 'src/app.ts' }, context())).toEqual({ text: 'export const answer = 42;\nexport const question = "?";\n', isError: false });
    expect(await runChatTool('read_file', { path: '../secret.txt' }, context())).toMatchObject({ isError: true, text: '../secret.txt is outside the working directory' });
    expect(await runChatTool('read_file', { path: 'link.txt' }, context())).toMatchObject({ isError: true, text: 'link.txt is outside the working directory' });
    expect(await runChatTool('read_file', { path: 'missing.ts' }, context())).toMatchObject({ isError: true, text: expect.stringContaining('ENOENT') });
  });

  it('list_files and search_text leave out node_modules, and do not follow symlinks', async () => {
    expect((await runChatTool('list_files', {}, context())).text.split('\n')).toEqual(['src/app.ts']);
    expect(await runChatTool('search_text', { pattern: 'answer = \\d+' }, context())).toEqual({ text: 'src/app.ts:1: export const answer = 42;', isError: false });
  });

  it('run_command is offered only when allowed, and runs only what the user confirms', async () => {
    expect(chatToolDefinitions(false).map((tool) => tool.name)).toEqual(['read_file', 'list_files', 'search_text']);
    expect(chatToolDefinitions(true).map((tool) => tool.name)).toContain('run_command');
    expect(await runChatTool('run_command', { command: 'echo hi' }, context())).toMatchObject({ isError: true, text: expect.stringContaining('--allow-commands') });
    const asked: string[] = [];
    const declined = await runChatTool('run_command', { command: 'echo hi' }, context({ allowCommands: true, confirm: (question) => (asked.push(question), Promise.resolve(false)) }));
    expect(declined).toEqual({ text: 'the user declined to run this command', isError: true });
    expect(asked).toEqual(['Run `echo hi`?']);
    expect(await runChatTool('run_command', { command: 'echo hi; pwd' }, context({ allowCommands: true, confirm: () => Promise.resolve(true) }))).toEqual({ text: `hi\n${work}\n`, isError: false });
    expect(await runChatTool('run_command', { command: 'exit 3' }, context({ allowCommands: true, confirm: () => Promise.resolve(true) }))).toMatchObject({ isError: true, text: expect.stringMatching(/^exit 3/) });
  });

  describe('are bounded', () => {
    // A working directory of its own, so that the listings above stay as they are.
    const other = join(root, 'other');
    mkdirSync(other);
    const bound = (overrides: Partial<ToolContext> = {}) => context({ cwd: other, ...overrides });

    it('search_text matches in linear time: a catastrophic pattern answers at once', async () => {
      // A backtracking engine takes seconds on 25 a's and doubles with each one more.
      writeFileSync(join(other, 'redos.txt'), `${'a'.repeat(25)}b\n`);
      const started = performance.now();
      expect(await runChatTool('search_text', { pattern: '^(a+)+$' }, bound())).toEqual({ text: '(no matches)', isError: false });
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(await runChatTool('search_text', { pattern: 'a+b$' }, bound())).toEqual({ text: `redos.txt:1: ${'a'.repeat(25)}b`, isError: false });
      expect(await runChatTool('search_text', { pattern: '(?=a)' }, bound())).toMatchObject({ isError: true, text: expect.stringMatching(/^the pattern is not a valid RE2 regular expression/) });
      rmSync(join(other, 'redos.txt'));
    });

    it('read_file refuses a named pipe and a device at once, instead of blocking or reading forever', async () => {
      const fifo = join(other, 'pipe');
      execFileSync('mkfifo', [fifo]);
      try {
        const timeout = new Promise((resolve) => {
          setTimeout(() => {
            resolve('still reading after 2 s');
          }, 2_000);
        });
        expect(await Promise.race([runChatTool('read_file', { path: 'pipe' }, bound()), timeout])).toEqual({ text: 'pipe is a named pipe; only regular files are read', isError: true });
      } finally {
        // Lets a read that blocked on the pipe end: a writer opens it and closes it.
        try {
          closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
        } catch {
          // No reader: nothing blocked.
        }
        rmSync(fifo);
      }
      expect(await runChatTool('read_file', { path: 'zero' }, bound({ cwd: '/dev' }))).toEqual({ text: 'zero is a character device; only regular files are read', isError: true });
    });

    it('read_file and search_text refuse a file over the cap, naming its size and the cap', async () => {
      writeFileSync(join(other, 'big.log'), `needle\n${'x'.repeat(2_000_000)}`);
      writeFileSync(join(other, 'small.txt'), 'needle\n');
      try {
        expect(await runChatTool('read_file', { path: 'big.log' }, bound())).toEqual({ text: expect.stringMatching(/^big\.log is 2,000,007 bytes, over the 2,000,000-byte cap; read a smaller file/), isError: true });
        expect(await runChatTool('search_text', { pattern: 'needle' }, bound())).toEqual({
          text: 'small.txt:1: needle\n(skipped big.log is 2,000,007 bytes, over the 2,000,000-byte cap; read a smaller file, or search it with search_text on a smaller one)',
          isError: false,
        });
      } finally {
        rmSync(join(other, 'big.log'));
        rmSync(join(other, 'small.txt'));
      }
    });

    it('read_file answers a file with NUL bytes as binary, with its size; run_command shows NUL bytes as \\x00', async () => {
      writeFileSync(join(other, 'image.bin'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x01]));
      expect(await runChatTool('read_file', { path: 'image.bin' }, bound())).toEqual({ text: 'image.bin is a binary file (it holds NUL bytes), 7 bytes; read_file shows text files only', isError: true });
      expect(await runChatTool('run_command', { command: 'printf \'a\\000b\'' }, bound({ allowCommands: true, confirm: () => Promise.resolve(true) }))).toEqual({ text: 'a\\x00b', isError: false });
      rmSync(join(other, 'image.bin'));
    });
  });
});
