import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveHistoryOutline } from '../conversation/history-outline.js';
import { HistoryStore } from '../store/history-store.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const binary = join(root, 'dist/cli/main.js');
const example = join(root, 'examples/coding-agent-session.json');

/** The exit status and stderr of the real binary (as built in dist/), run in `cwd`. */
function cli(args: readonly string[], options: { cwd?: string; asNobody?: boolean } = {}): Promise<{ status: number | null; stderr: string }> {
  const [command, commandArgs] = options.asNobody
    ? ['setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', process.execPath, binary, ...args]]
    : [process.execPath, [binary, ...args]];
  return new Promise((resolve) => {
    execFile(command, commandArgs, { cwd: options.cwd ?? root, env: { ...process.env, DATABASE_URL: '', SLIDING_CONTEXT_DATA_DIR: '' }, encoding: 'utf8' }, (error, _stdout, stderr) => {
      resolve({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stderr });
    });
  });
}

/** Every file under `directory` with a hash of its bytes: equal snapshots mean nothing changed. */
function snapshot(directory: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of readdirSync(directory, { recursive: true, encoding: 'utf8' }).sort()) {
    const path = join(directory, name);
    files[name] = statSync(path).isDirectory() ? 'directory' : createHash('sha256').update(readFileSync(path)).digest('hex');
  }
  return files;
}

/** Whether `nobody` can run the binary here: root bypasses permission checks, so the read-only case runs as nobody. */
function readOnlyStrategy(): { asNobody: false } | { asNobody: true; uid: number; gid: number } | { skip: string } {
  if (userInfo().uid !== 0) return { asNobody: false };
  const probe = spawnSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', process.execPath, binary, '--version'], { encoding: 'utf8' });
  const ids = spawnSync('id', ['nobody'], { encoding: 'utf8' }).stdout.match(/uid=(\d+).*gid=(\d+)/);
  if (probe.status === 0 && ids) return { asNobody: true, uid: Number(ids[1]), gid: Number(ids[2]) };
  return { skip: `running as root, where permission checks are bypassed, and the binary cannot be run as nobody with setpriv (${probe.error?.message ?? probe.stderr.trim()})` };
}

interface Case {
  readonly name: string;
  readonly args: (paths: Paths) => string[];
  readonly code: string;
  /** Text stderr must hold (a host and port), and text it must never hold (a password, raw bytes). */
  readonly mentions?: readonly string[];
  readonly never?: readonly string[];
  readonly cwd?: (paths: Paths) => string;
  readonly asNobody?: boolean;
  /** The folder holding the store this case must leave unchanged. */
  readonly unchanged?: (paths: Paths) => string;
}

interface Paths {
  readonly directory: string;
  /** A PGlite store with the example imported, in its own folder: `<storeHome>/store`. */
  readonly storeHome: string;
  readonly readOnlyHome: string;
  /** The saved views of the store in a folder that is read-only, so that not even the lock file can be made. */
  readonly lockedHome: string;
  readonly agentId: string;
}

const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]), Buffer.from('IHDR'), Buffer.alloc(64, 0x1b), Buffer.alloc(64, 0)]);
const RAW_BYTES = ['\u0000', '\u001b', '\ufffd', 'PNG'];
/** A conversation saved as Latin-1: its `é` is a byte that UTF-8 has no character for. */
const latin1 = Buffer.from(JSON.stringify([{ role: 'user', content: 'Meet at the café.' }]), 'latin1');

const store = (paths: Paths) => join(paths.storeHome, 'store');

const cases: Case[] = [
  { name: 'a server on a closed port', args: () => ['agents', '--database-url', 'postgres://u:secret@127.0.0.1:1/x'], code: 'STORE_UNAVAILABLE', mentions: ['127.0.0.1:1'], never: ['secret'] },
  { name: 'a URL with a malformed host', args: () => ['agents', '--database-url', 'postgres://%%%'], code: 'INVALID_DATABASE_URL' },
  { name: 'a URL with a password and a malformed host', args: () => ['agents', '--database-url', 'postgres://u:secret@%%%/x'], code: 'INVALID_DATABASE_URL', never: ['secret'] },
  { name: 'a URL with a malformed password', args: () => ['agents', '--database-url', 'postgres://u:se%cret@127.0.0.1/x'], code: 'INVALID_DATABASE_URL', never: ['se%cret', 'cret'] },
  { name: 'not a URL', args: () => ['agents', '--database-url', 'not a url'], code: 'INVALID_DATABASE_URL' },
  { name: 'a read-only data folder', args: (paths) => ['import', example, '--data-dir', join(paths.readOnlyHome, 'store')], code: 'STORE_UNAVAILABLE', mentions: ['not writable'], asNobody: true, unchanged: (paths) => paths.readOnlyHome },
  { name: 'history in a folder where the lock cannot be made', args: (paths) => ['history', paths.agentId, '--data-dir', join(paths.lockedHome, 'store')], code: 'STORE_UNAVAILABLE', mentions: ['permission denied'], asNobody: true, unchanged: (paths) => paths.lockedHome },
  { name: 'a data dir that is a file', args: (paths) => ['agents', '--data-dir', join(paths.directory, 'a-file')], code: 'STORE_UNAVAILABLE', mentions: ['is a file'] },
  { name: 'a data dir under a file', args: (paths) => ['agents', '--data-dir', join(paths.directory, 'a-file', 'store')], code: 'STORE_UNAVAILABLE' },
  { name: 'a config file that is a folder', args: () => ['count', example], cwd: (paths) => join(paths.directory, 'config-folder'), code: 'CONFIG_INVALID', mentions: ['sliding-context.config.json'] },
  { name: 'a message that quotes a key', args: () => ['count', 'sk-ant-api03-abcdefghijklmnop.json'], code: 'INPUT_UNREADABLE', mentions: ['sk-ant-[redacted]'], never: ['abcdefghijklmnop'] },
  { name: 'an unknown option', args: () => ['window', '--bogus'], code: 'UNKNOWN_OPTION', mentions: ['--bogus'] },
  { name: 'an unknown command', args: () => ['bogus'], code: 'UNKNOWN_COMMAND' },
  { name: 'a missing argument', args: (paths) => ['import', '--data-dir', store(paths)], code: 'INVALID_USAGE', unchanged: (paths) => paths.storeHome },
  { name: 'window of JSON 100,000 deep', args: (paths) => ['window', join(paths.directory, 'deep.json')], code: 'INPUT_TOO_DEEP', mentions: ['256'] },
  { name: 'count of JSON 100,000 deep', args: (paths) => ['count', join(paths.directory, 'deep.json')], code: 'INPUT_TOO_DEEP', mentions: ['256'] },
  { name: 'count of messages 100,000 deep', args: (paths) => ['count', join(paths.directory, 'deep-messages.json')], code: 'INPUT_TOO_DEEP', mentions: ['256'] },
  { name: 'import of JSON 100,000 deep', args: (paths) => ['import', join(paths.directory, 'deep.json'), '--data-dir', store(paths)], code: 'INPUT_TOO_DEEP', unchanged: (paths) => paths.storeHome },
  { name: 'import of JSONL with a line 100,000 deep', args: (paths) => ['import', join(paths.directory, 'deep.jsonl'), '--data-dir', store(paths)], code: 'INPUT_TOO_DEEP', mentions: ['line 2'], unchanged: (paths) => paths.storeHome },
  { name: 'count of a PNG', args: (paths) => ['count', join(paths.directory, 'image.png')], code: 'INPUT_NOT_TEXT', never: RAW_BYTES },
  { name: 'window of a PNG', args: (paths) => ['window', join(paths.directory, 'image.png')], code: 'INPUT_NOT_TEXT', never: RAW_BYTES },
  { name: 'import of a PNG', args: (paths) => ['import', join(paths.directory, 'image.png'), '--data-dir', store(paths)], code: 'INPUT_NOT_TEXT', never: RAW_BYTES, unchanged: (paths) => paths.storeHome },
  { name: 'import of a PNG named .jsonl', args: (paths) => ['import', join(paths.directory, 'image.jsonl'), '--data-dir', store(paths)], code: 'INPUT_NOT_TEXT', never: RAW_BYTES, unchanged: (paths) => paths.storeHome },
  { name: 'count of a bare PNG signature', args: (paths) => ['count', join(paths.directory, 'signature.png')], code: 'INPUT_NOT_TEXT', mentions: ['is not text'], never: RAW_BYTES },
  { name: 'count of a file that is not UTF-8', args: (paths) => ['count', join(paths.directory, 'latin1.json')], code: 'INPUT_NOT_TEXT', mentions: [`is not valid UTF-8 (byte ${latin1.indexOf(0xe9)})`], never: ['\ufffd'] },
  { name: 'import of a file that is not UTF-8', args: (paths) => ['import', join(paths.directory, 'latin1.json'), '--data-dir', store(paths)], code: 'INPUT_NOT_TEXT', mentions: ['is not valid UTF-8'], unchanged: (paths) => paths.storeHome },
  { name: 'import of a program', args: (paths) => ['import', join(paths.directory, 'program'), '--data-dir', store(paths)], code: 'INPUT_NOT_TEXT', never: ['\u0000', '\u007f', 'ELF'], unchanged: (paths) => paths.storeHome },
];

const serverUrl = process.env.DATABASE_URL;
if (serverUrl) {
  const missing = new URL(serverUrl);
  missing.username ||= 'postgres';
  missing.password = 'not-this-password';
  missing.pathname = '/sliding_context_no_such_database';
  cases.push({ name: 'a server database that does not exist', args: () => ['agents', '--database-url', missing.toString()], code: 'STORE_UNAVAILABLE', mentions: [`${missing.hostname}:${missing.port || '5432'}`], never: ['not-this-password'] });
} else {
  console.log('raw-errors: DATABASE_URL is not set, so the case of a missing server database is skipped.');
}

describe('failures outside the program: one error[CODE] line, exit 2, no stack, the store unchanged', () => {
  const strategy = readOnlyStrategy();
  if ('skip' in strategy) console.log(`raw-errors: the read-only data folder case is skipped: ${strategy.skip}.`);
  const runnable = cases.filter((entry) => !(entry.asNobody && 'skip' in strategy));
  let paths: Paths;
  const before = new Map<string, Record<string, string>>();
  const results = new Map<string, { status: number | null; stderr: string }>();

  beforeAll(async () => {
    const directory = mkdtempSync(join(tmpdir(), 'sliding-context-raw-errors-'));
    const homes = { storeHome: join(directory, 'home'), readOnlyHome: join(directory, 'read-only'), lockedHome: join(directory, 'locked') };
    writeFileSync(join(directory, 'a-file'), 'not a directory');
    mkdirSync(join(directory, 'config-folder', 'sliding-context.config.json'), { recursive: true });
    writeFileSync(join(directory, 'deep.json'), deep(100_000));
    writeFileSync(join(directory, 'deep-messages.json'), `{"messages":[{"role":"user","content":${deep(100_000)}}]}`);
    writeFileSync(join(directory, 'deep.jsonl'), `{"type":"user"}\n{"type":"user","message":${deep(100_000)}}\n`);
    writeFileSync(join(directory, 'image.png'), png);
    writeFileSync(join(directory, 'image.jsonl'), png);
    writeFileSync(join(directory, 'signature.png'), png.subarray(0, 8));
    writeFileSync(join(directory, 'latin1.json'), latin1);
    writeFileSync(join(directory, 'program'), Buffer.concat([Buffer.from('\u007fELF\u0002\u0001\u0001'), Buffer.alloc(256, 0)]));
    const history = await HistoryStore.open({ dataDir: join(homes.storeHome, 'store') });
    const agentId = await history.createAgent();
    await history.append(agentId, [{ role: 'user', content: 'Keep this.' }]);
    // Saved beside the store, `history` reads it under the directory lock alone.
    await saveHistoryOutline(history, agentId);
    await history.close();
    paths = { directory, ...homes, agentId };
    cpSync(paths.storeHome, paths.readOnlyHome, { recursive: true });
    // `history` reads the saved outline and never the store there: the views are all it needs.
    mkdirSync(join(paths.lockedHome, 'store'), { recursive: true });
    cpSync(join(paths.storeHome, 'store.views'), join(paths.lockedHome, 'store.views'), { recursive: true });
    if ('asNobody' in strategy) {
      if (strategy.asNobody) {
        chmodSync(directory, 0o755);
        for (const home of [paths.readOnlyHome, paths.lockedHome]) {
          chownSync(home, strategy.uid, strategy.gid);
          for (const name of readdirSync(home, { recursive: true, encoding: 'utf8' })) chownSync(join(home, name), strategy.uid, strategy.gid);
        }
      }
      chmodSync(join(paths.readOnlyHome, 'store'), 0o500);
      chmodSync(paths.lockedHome, 0o500);
    }
    for (const home of [paths.storeHome, paths.readOnlyHome, paths.lockedHome]) before.set(home, snapshot(home));
    await Promise.all(runnable.map(async (entry) => {
      results.set(entry.name, await cli(entry.args(paths), { cwd: entry.cwd?.(paths) ?? root, asNobody: entry.asNobody === true && 'asNobody' in strategy && strategy.asNobody }));
    }));
    // Minutes only on a machine under heavy load; seconds otherwise.
  }, 300_000);

  afterAll(() => {
    chmodSync(join(paths.readOnlyHome, 'store'), 0o700);
    chmodSync(paths.lockedHome, 0o700);
    rmSync(paths.directory, { recursive: true, force: true });
  }, 60_000);

  it.each(runnable.map((entry) => [entry.name, entry] as const))('%s', (_, entry) => {
    const result = results.get(entry.name);
    expect(result).toBeDefined();
    const { status, stderr } = result ?? { status: null, stderr: '' };
    expect(stderr).toMatch(/^error\[[A-Z_]+\]: [^\n]+\n$/);
    expect(stderr.startsWith(`error[${entry.code}]: `), stderr).toBe(true);
    expect(stderr).not.toMatch(/ {4}at /);
    expect(status).toBe(2);
    for (const text of entry.mentions ?? []) expect(stderr).toContain(text);
    for (const text of entry.never ?? []) expect(stderr).not.toContain(text);
    if (entry.unchanged) expect(snapshot(entry.unchanged(paths))).toEqual(before.get(entry.unchanged(paths)));
  });
});
