#!/usr/bin/env node
import { createReadStream } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import nodeModule from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { buffer } from 'node:stream/consumers';
import { CommanderError } from 'commander';
import { redactSecrets } from '../errors/redact-secrets.js';
import { isSlidingContextError } from '../errors/sliding-context-error.js';
import type { CliIo } from './cli-io.js';
import { createProgram } from './program.js';
import { usageError } from './usage-error.js';
import { readUtf8Lines } from './read-utf8-lines.js';
import { neutralizeControlCharacters } from './render/neutralize-control-characters.js';

// Node 22.1 and later can cache compiled modules on disk for faster starts; older Nodes lack it.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
// PGlite's WebAssembly is compiled by the baseline compiler only: a command runs for about a
// second, and optimizing its hot functions on the other core cost more than it saved (opening a
// store took twice the CPU time with it, and on Node 24 over 600 MB of memory). A flag set after
// start does not bring the flags it implies on the command line, and Node 24's V8 reads those:
// each is set.
setFlagsFromString('--liftoff-only --no-wasm-tier-up --no-wasm-dynamic-tiering');

/** Stdin's bytes: the reader checks they are UTF-8 before it decodes them. */
async function readStdin(): Promise<Buffer> {
  if (process.stdin.isTTY) {
    throw new Error('no input file given and stdin is a terminal; pass a file or pipe JSON in');
  }
  return buffer(process.stdin);
}

/** Asks on the terminal (stderr, so that stdout stays the command's output); only `y` is yes. */
async function confirmOnTerminal(question: string): Promise<boolean> {
  const lines = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await new Promise<string>((resolve) => {
      lines.question(`${question} [y/N] `, resolve);
      lines.once('close', () => {
        resolve('');
      });
    });
    return answer.trim().toLowerCase() === 'y';
  } finally {
    lines.close();
  }
}

// A reader that stops early (`| head`) closes the pipe: that is not an error worth a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

const io: CliIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  stderrIsTerminal: process.stderr.isTTY,
  stdoutIsTerminal: process.stdout.isTTY,
  confirm: process.stdin.isTTY && process.stderr.isTTY ? confirmOnTerminal : undefined,
  writeText: (path, text) => writeFile(path, text, 'utf8'),
  env: process.env,
  readText: (path) => readFile(path),
  readLines: (path) => readUtf8Lines(path === '-' ? process.stdin : createReadStream(path), path === '-' ? 'stdin' : path),
  fileSize: async (path) => (await stat(path)).size,
  terminal: { input: process.stdin, output: process.stdout },
  cwd: process.cwd(),
  readStdin,
  onInterrupt(cleanup) {
    const handler = (signal: NodeJS.Signals) => {
      const code = signal === 'SIGINT' ? 130 : 143;
      void cleanup().then((outcome) => process.exit(outcome === 'finished' ? 0 : code), () => process.exit(code));
    };
    process.once('SIGINT', handler);
    process.once('SIGTERM', handler);
    return () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    };
  },
};

try {
  await createProgram(io).parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Help and the version exit 0; help shown for a missing command was printed already.
    if (error.exitCode !== 0 && error.code !== 'commander.help') {
      const usage = usageError(error);
      process.stderr.write(`error[${usage.code}]: ${neutralizeControlCharacters(usage.message)}\n`);
    }
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else if (isSlidingContextError(error)) {
    // A message may quote a provider's error text, which may echo the key it was sent, and input
    // with control characters: shown, never sent to the terminal.
    process.stderr.write(`error[${error.code}]: ${neutralizeControlCharacters(redactSecrets(error.message))}\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(
      `unexpected error: ${neutralizeControlCharacters(redactSecrets(error instanceof Error ? (error.stack ?? error.message) : String(error)))}\n`,
    );
    process.exitCode = 1;
  }
}
