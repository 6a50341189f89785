import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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
});
