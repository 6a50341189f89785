import { Readable } from 'node:stream';
import type { CliIo } from './cli-io.js';
import { createProgram } from './program.js';
import { readUtf8Lines } from './read-utf8-lines.js';

/** Runs the CLI in-process on the given arguments, files and stdin; returns what it printed. */
export async function runCli(
  args: readonly string[],
  options: {
    /** Text, or bytes (a file that is not UTF-8). */
    files?: Record<string, string | Uint8Array>;
    stdin?: string | Uint8Array;
    env?: Record<string, string>;
    stderrIsTerminal?: boolean;
    stdoutIsTerminal?: boolean;
    /** Answers to the yes/no questions a command asks on the terminal, in order; none means no terminal to ask on. */
    answers?: boolean[];
  } = {},
) {
  let stdout = '';
  let stderr = '';
  const questions: string[] = [];
  const written: Record<string, string> = {};
  const answers = options.answers === undefined ? undefined : [...options.answers];
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    stderrIsTerminal: options.stderrIsTerminal,
    stdoutIsTerminal: options.stdoutIsTerminal,
    confirm: answers && ((question: string) => {
      questions.push(question);
      return Promise.resolve(answers.shift() ?? false);
    }),
    writeText: (path, text) => {
      written[path] = text;
      return Promise.resolve();
    },
    env: options.env ?? {},
    readText: (path) => {
      const text = options.files?.[path];
      return text === undefined
        ? Promise.reject(Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' }))
        : Promise.resolve(text);
    },
    readStdin: () => Promise.resolve(options.stdin ?? ''),
    readLines(path) {
      const content = path === '-' ? options.stdin : options.files?.[path];
      if (content === undefined) throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });
      // Read as the CLI reads a file's lines: bytes that are not UTF-8 are refused.
      return readUtf8Lines(Readable.from([typeof content === 'string' ? Buffer.from(content) : content]), path === '-' ? 'stdin' : path);
    },
    fileSize: (path) => Promise.resolve(Buffer.byteLength(options.files?.[path] ?? '')),
    onInterrupt: () => () => undefined,
  };
  await createProgram(io).parseAsync(['node', 'sliding-context', ...args]);
  return { stdout, stderr, questions, written };
}
