import { execFile } from 'node:child_process';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { ToolDefinition } from '../../message/message.js';

const run = promisify(execFile);

/** The most characters a tool returns; longer output is cut, and says so. */
const OUTPUT_CHARACTERS = 60_000;
/** Folders never listed or searched. */
const SKIPPED_FOLDERS = new Set(['.git', 'node_modules', 'dist', '.next', 'coverage']);

/** The built-in tools: read-only inside the working directory, and `run_command` when allowed. */
export function chatToolDefinitions(allowCommands: boolean): ToolDefinition[] {
  const tools: ToolDefinition[] = [
    {
      name: 'read_file',
      description: 'Read a text file inside the working directory.',
      inputSchema: { type: 'object', properties: { path: { type: 'string', description: 'path relative to the working directory' } }, required: ['path'] },
    },
    {
      name: 'list_files',
      description: 'List the files under a folder of the working directory (recursively, without .git and node_modules).',
      inputSchema: { type: 'object', properties: { path: { type: 'string', description: 'folder, default "."' } } },
    },
    {
      name: 'search_text',
      description: 'Search the text files of the working directory for a regular expression; answers file:line: text.',
      inputSchema: { type: 'object', properties: { pattern: { type: 'string' }, path: { type: 'string', description: 'folder, default "."' } }, required: ['pattern'] },
    },
  ];
  if (allowCommands) {
    tools.push({
      name: 'run_command',
      description: 'Run a shell command in the working directory (the user confirms each one).',
      inputSchema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
    });
  }
  return tools;
}

/** What a tool answered; `isError` when it could not do what was asked. */
export interface ToolOutcome {
  readonly text: string;
  readonly isError: boolean;
}

/** Where a tool runs and how it asks before running a command. */
export interface ToolContext {
  readonly cwd: string;
  readonly allowCommands: boolean;
  readonly confirm: (question: string) => Promise<boolean>;
}

function clipOutput(text: string): string {
  return text.length <= OUTPUT_CHARACTERS ? text : `${text.slice(0, OUTPUT_CHARACTERS)}\n… [${text.length - OUTPUT_CHARACTERS} more characters cut]`;
}

/** A path inside the working directory, symlinks resolved; anything else is refused. */
async function inside(cwd: string, path: unknown): Promise<string> {
  const given = typeof path === 'string' && path !== '' ? path : '.';
  const root = await realpath(cwd);
  const target = await realpath(resolve(root, given));
  const offset = relative(root, target);
  if (offset.startsWith('..') || isAbsolute(offset)) throw new Error(`${given} is outside the working directory`);
  return target;
}

async function listFiles(root: string, folder: string, into: string[], limit: number): Promise<void> {
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    if (into.length >= limit) return;
    if (entry.isDirectory()) {
      if (!SKIPPED_FOLDERS.has(entry.name)) await listFiles(root, join(folder, entry.name), into, limit);
    } else if (entry.isFile()) into.push(relative(root, join(folder, entry.name)));
  }
}

const argument = (input: unknown, key: string): unknown => (typeof input === 'object' && input !== null ? (input as Record<string, unknown>)[key] : undefined);

/** Runs one tool call. Failures are answers (`isError`), never exceptions: the model reads them. */
export async function runChatTool(name: string, input: unknown, context: ToolContext): Promise<ToolOutcome> {
  try {
    switch (name) {
      case 'read_file': {
        const path = await inside(context.cwd, argument(input, 'path'));
        if ((await stat(path)).size > 2_000_000) return { text: 'the file is over 2 MB; read a smaller one', isError: true };
        return { text: clipOutput(await readFile(path, 'utf8')), isError: false };
      }
      case 'list_files': {
        const root = await realpath(context.cwd);
        const files: string[] = [];
        await listFiles(root, await inside(context.cwd, argument(input, 'path')), files, 2_000);
        return { text: files.sort().join('\n') || '(no files)', isError: false };
      }
      case 'search_text': {
        const pattern = new RegExp(String(argument(input, 'pattern')), 'u');
        const root = await realpath(context.cwd);
        const files: string[] = [];
        await listFiles(root, await inside(context.cwd, argument(input, 'path')), files, 5_000);
        const matches: string[] = [];
        for (const file of files) {
          const text = await readFile(join(root, file), 'utf8').catch(() => '');
          if (text.includes('\u0000')) continue;
          text.split('\n').forEach((line, index) => {
            if (matches.length < 500 && pattern.test(line)) matches.push(`${file}:${index + 1}: ${line.slice(0, 300)}`);
          });
        }
        return { text: matches.join('\n') || '(no matches)', isError: false };
      }
      case 'run_command': {
        const command = String(argument(input, 'command'));
        if (!context.allowCommands) return { text: 'run_command is not allowed (start chat with --allow-commands)', isError: true };
        if (!(await context.confirm(`Run \`${command}\`?`))) return { text: 'the user declined to run this command', isError: true };
        try {
          const { stdout, stderr } = await run('/bin/sh', ['-c', command], { cwd: context.cwd, timeout: 120_000, maxBuffer: 8_000_000 });
          return { text: clipOutput(`${stdout}${stderr}`) || '(no output)', isError: false };
        } catch (error) {
          const failed = error as { code?: unknown; stdout?: string; stderr?: string };
          return { text: clipOutput(`exit ${String(failed.code)}\n${failed.stdout ?? ''}${failed.stderr ?? ''}`), isError: true };
        }
      }
      default:
        return { text: `no tool is named ${name}`, isError: true };
    }
  } catch (error) {
    return { text: error instanceof Error ? error.message : String(error), isError: true };
  }
}
