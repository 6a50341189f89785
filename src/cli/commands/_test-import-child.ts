/**
 * A child process for the import crash test: runs `import <file>` into a new agent with progress
 * drawn on stderr (as on a terminal), so that the parent can kill it with SIGKILL while it stores.
 */
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { CliIo } from '../cli-io.js';
import { readUtf8Lines } from '../read-utf8-lines.js';
import { runImportCommand } from './import-command.js';

const [location, file] = process.argv.slice(2);
if (!location || !file) throw new Error('usage: _test-import-child <dataDir|databaseUrl> <file>');
const io: CliIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  stderrIsTerminal: true,
  env: {},
  readText: (path) => readFile(path, 'utf8'),
  readLines: (path) => readUtf8Lines(createReadStream(path), path),
  fileSize: async (path) => (await stat(path)).size,
  readStdin: () => Promise.reject(new Error('no stdin here')),
  onInterrupt: () => () => undefined,
};
await runImportCommand(file, { ...(location.startsWith('postgres') ? { databaseUrl: location } : { dataDir: location }), json: true }, io);
