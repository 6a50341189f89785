import { execFile } from 'node:child_process';
import { constants, type Stats } from 'node:fs';
import { open, readdir, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { RE2JS } from 're2js';
import type { ToolDefinition } from '../../message/message.js';
import { formatNumber } from '../render/format-number.js';

const run = promisify(execFile);

/** The most characters a tool returns; longer output is cut, and says so. */
const OUTPUT_CHARACTERS = 60_000;
/** The largest file `read_file` reads and `search_text` searches, in bytes; larger ones are refused. */
const FILE_BYTES_CAP = 2_000_000;
/** The most bytes one `search_text` reads in all before it stops and says so. */
const SEARCH_BYTES_CAP = 50_000_000;
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
      description: 'Search the text files of the working directory for a regular expression (RE2 syntax: no lookaround, no backreferences); answers file:line: text.',
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

/** A file's bytes, or why they are not read. */
type FileRead = { readonly bytes: Buffer } | { readonly refusal: string };

function kindOf(info: Stats): string {
  if (info.isFIFO()) return 'a named pipe';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSocket()) return 'a socket';
  if (info.isDirectory()) return 'a folder';
  return 'not a regular file';
}

/**
 * Reads a regular file of at most {@link FILE_BYTES_CAP} bytes. Opened without blocking and
 * checked on the open handle: a named pipe would block the read forever (and with it the exit of
 * the process), a device such as /dev/zero would never end, and a file swapped between a check
 * and the open is still the file checked. At most one byte over the cap is read, however the file grows.
 */
async function readRegularFile(path: string, given: string): Promise<FileRead> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { refusal: `${given} is ${kindOf(info)}; only regular files are read` };
    const tooLarge = (size: number) => ({ refusal: `${given} is ${formatNumber(size)} bytes, over the ${formatNumber(FILE_BYTES_CAP)}-byte cap; read a smaller file, or search it with search_text on a smaller one` });
    if (info.size > FILE_BYTES_CAP) return tooLarge(info.size);
    const buffer = Buffer.alloc(FILE_BYTES_CAP + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > FILE_BYTES_CAP) return tooLarge(length);
    }
    return { bytes: buffer.subarray(0, length) };
  } finally {
    await handle.close();
  }
}

/** A NUL byte marks a binary file: the text of one means nothing to the model (and NUL does not store). */
const isBinary = (bytes: Buffer) => bytes.includes(0);

/** A regular expression that matches in time linear in its input (RE2): no pattern can hang a search. */
function compilePattern(pattern: unknown): RE2JS {
  try {
    return RE2JS.compile(String(pattern));
  } catch (error) {
    throw new Error(`the pattern is not a valid RE2 regular expression (no lookaround, no backreferences): ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

async function listFiles(root: string, folder: string, into: string[], limit: number): Promise<void> {
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    if (into.length >= limit) return;
    if (entry.isDirectory()) {
      if (!SKIPPED_FOLDERS.has(entry.name)) await listFiles(root, join(folder, entry.name), into, limit);
    } else if (entry.isFile()) into.push(relative(root, join(folder, entry.name)));
  }
}

/** A command's output with its NUL bytes written `\x00`: the model reads them, and the history can store them. */
const showNul = (text: string) => text.replaceAll('\u0000', '\\x00');

const argument = (input: unknown, key: string): unknown => (typeof input === 'object' && input !== null ? (input as Record<string, unknown>)[key] : undefined);

/** Runs one tool call. Failures are answers (`isError`), never exceptions: the model reads them. */
export async function runChatTool(name: string, input: unknown, context: ToolContext): Promise<ToolOutcome> {
  try {
    switch (name) {
      case 'read_file': {
        const given = argument(input, 'path');
        const read = await readRegularFile(await inside(context.cwd, given), String(given));
        if ('refusal' in read) return { text: read.refusal, isError: true };
        if (isBinary(read.bytes)) return { text: `${String(given)} is a binary file (it holds NUL bytes), ${formatNumber(read.bytes.length)} bytes; read_file shows text files only`, isError: true };
        return { text: clipOutput(read.bytes.toString('utf8')), isError: false };
      }
      case 'list_files': {
        const root = await realpath(context.cwd);
        const files: string[] = [];
        await listFiles(root, await inside(context.cwd, argument(input, 'path')), files, 2_000);
        return { text: files.sort().join('\n') || '(no files)', isError: false };
      }
      case 'search_text': {
        const pattern = compilePattern(argument(input, 'pattern'));
        const root = await realpath(context.cwd);
        const files: string[] = [];
        await listFiles(root, await inside(context.cwd, argument(input, 'path')), files, 5_000);
        const matches: string[] = [];
        const notes: string[] = [];
        let searchedBytes = 0;
        for (const file of files) {
          if (matches.length >= 500) break;
          if (searchedBytes > SEARCH_BYTES_CAP) {
            notes.push(`(stopped after ${formatNumber(searchedBytes)} bytes, over the ${formatNumber(SEARCH_BYTES_CAP)}-byte cap of one search: narrow the path)`);
            break;
          }
          const read = await readRegularFile(join(root, file), file).catch((error: unknown) => ({ refusal: `${file}: ${error instanceof Error ? error.message : String(error)}` }));
          if ('refusal' in read) {
            notes.push(`(skipped ${read.refusal})`);
            continue;
          }
          searchedBytes += read.bytes.length;
          if (isBinary(read.bytes)) continue;
          read.bytes.toString('utf8').split('\n').forEach((line, index) => {
            if (matches.length < 500 && pattern.test(line)) matches.push(`${file}:${index + 1}: ${line.slice(0, 300)}`);
          });
        }
        return { text: [matches.join('\n') || '(no matches)', ...notes].join('\n'), isError: false };
      }
      case 'run_command': {
        const command = String(argument(input, 'command'));
        if (!context.allowCommands) return { text: 'run_command is not allowed (start chat with --allow-commands)', isError: true };
        if (!(await context.confirm(`Run \`${command}\`?`))) return { text: 'the user declined to run this command', isError: true };
        try {
          const { stdout, stderr } = await run('/bin/sh', ['-c', command], { cwd: context.cwd, timeout: 120_000, maxBuffer: 8_000_000 });
          return { text: clipOutput(showNul(`${stdout}${stderr}`)) || '(no output)', isError: false };
        } catch (error) {
          const failed = error as { code?: unknown; stdout?: string; stderr?: string };
          return { text: clipOutput(showNul(`exit ${String(failed.code)}\n${failed.stdout ?? ''}${failed.stderr ?? ''}`)), isError: true };
        }
      }
      default:
        return { text: `no tool is named ${name}`, isError: true };
    }
  } catch (error) {
    return { text: error instanceof Error ? error.message : String(error), isError: true };
  }
}
