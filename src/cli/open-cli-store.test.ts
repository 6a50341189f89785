import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir, userInfo } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createServerDatabase } from '../testing/server-database.js';
import { runCli } from './_test-cli.js';
import { cliStoreLocation } from './open-cli-store.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const directory = mkdtempSync(join(tmpdir(), 'sliding-context-cli-store-'));
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

/** Folders that hold no store: a read-only command names the one it was pointed at. */
const flagDir = join(directory, 'flag');
const envDir = join(directory, 'env');
const configDir = join(directory, 'config');
/** Closed loopback ports: the server URLs name themselves in the connection error. */
const flagUrl = 'postgres://postgres@127.0.0.1:1/flag';
const envUrl = 'postgres://postgres@127.0.0.1:2/env';
const configUrl = 'postgres://postgres@127.0.0.1:3/config';

/** The store `agents` opened: its folder, or its URL's port; whatever it failed on says which. */
async function storeChosen(flags: string[], env: Record<string, string>, config: Record<string, string>): Promise<string> {
  const files = Object.keys(config).length > 0 ? { 'sliding-context.config.json': JSON.stringify(config) } : {};
  try {
    await runCli(['agents', ...flags], { env, files });
  } catch (error) {
    const text = `${String(error)} ${error instanceof Error ? String(error.cause) : ''}`;
    const folder = /There is no store at (\S+);/.exec(text)?.[1];
    if (folder) return folder;
    const port = /127\.0\.0\.1:(\d)/.exec(text)?.[1];
    if (port) return `port ${port}`;
    return text;
  }
  return 'opened a store';
}

describe('choosing the store: flags, then env vars, then the config file', () => {
  it.each([
    ['--data-dir beats DATABASE_URL', ['--data-dir', flagDir], { DATABASE_URL: envUrl }, {}, flagDir],
    ['--data-dir beats a URL in the config file', ['--data-dir', flagDir], {}, { databaseUrl: configUrl }, flagDir],
    ['--database-url beats SLIDING_CONTEXT_DATA_DIR', ['--database-url', flagUrl], { SLIDING_CONTEXT_DATA_DIR: envDir }, {}, 'port 1'],
    ['--database-url beats --data-dir, as before', ['--data-dir', flagDir, '--database-url', flagUrl], {}, {}, 'port 1'],
    ['SLIDING_CONTEXT_DATA_DIR beats a URL in the config file', [], { SLIDING_CONTEXT_DATA_DIR: envDir }, { databaseUrl: configUrl }, envDir],
    ['DATABASE_URL beats a folder in the config file', [], { DATABASE_URL: envUrl }, { dataDir: configDir }, 'port 2'],
    ['DATABASE_URL beats SLIDING_CONTEXT_DATA_DIR, as before', [], { DATABASE_URL: envUrl, SLIDING_CONTEXT_DATA_DIR: envDir }, {}, 'port 2'],
    ['the config file\'s folder when nothing else names a store', [], {}, { dataDir: configDir }, configDir],
    ['the config file\'s URL beats its folder, as before', [], {}, { dataDir: configDir, databaseUrl: configUrl }, 'port 3'],
  ])('%s', async (_, flags, env, config, expected) => {
    expect(await storeChosen(flags, env, config)).toBe(expected);
  });
});

describe('an empty store flag', () => {
  it.each([['--data-dir'], ['--database-url']])('%s "" is refused, not taken as unset: the data home\'s store is not touched', async (flag) => {
    const home = join(directory, `empty-${flag.slice(2)}`);
    const error: unknown = await runCli(['agents', flag, ''], { env: { HOME: home, XDG_DATA_HOME: join(home, 'data') } }).then(() => undefined, (caught: unknown) => caught);
    expect(String(error)).toContain(`${flag}: the value is empty`);
    expect(existsSync(home)).toBe(false);
  });
});

describe('a blank store setting, on every command', () => {
  const refusal = (args: string[], options: Parameters<typeof runCli>[1] = {}) => runCli(args, options).then(() => 'ran', (caught: unknown) => String(caught));

  it('refuses --data-dir "" or "   " with the CLI\'s wording, on demo and window too (which need no store)', async () => {
    const files = { 's.json': JSON.stringify([{ role: 'user', content: 'hi' }]) };
    for (const value of ['', '   ']) {
      for (const args of [['demo', '--exchanges', '1'], ['window', 's.json'], ['agents'], ['history', 'x']]) {
        expect(await refusal([...args, '--data-dir', value], { files })).toContain('--data-dir: the value is empty; give a directory, or leave the option out.');
      }
    }
  });

  it('names SLIDING_CONTEXT_DATA_DIR or DATABASE_URL when the blank value came from it, and the config file for its own', async () => {
    expect(await refusal(['agents'], { env: { SLIDING_CONTEXT_DATA_DIR: '   ' } })).toContain('SLIDING_CONTEXT_DATA_DIR: the value is blank; give a directory, or unset it.');
    expect(await refusal(['agents'], { env: { DATABASE_URL: ' ' } })).toContain('DATABASE_URL: the value is blank; give a postgres:// URL, or unset it.');
    const config = (dataDir: string) => ({ files: { 'sliding-context.config.json': JSON.stringify({ dataDir }) } });
    expect(await refusal(['demo', '--exchanges', '1'], config('  '))).toContain('sliding-context.config.json: dataDir: must not be blank');
  });
});

describe('a data directory that starts with ~ (which the shell leaves as it is after `=`)', () => {
  it('is under the home directory, from --data-dir=~/…, SLIDING_CONTEXT_DATA_DIR and the config file', async () => {
    const home = join(directory, 'home');
    vi.stubEnv('HOME', home);
    try {
      expect(homedir()).toBe(home);
      const inHome = join(home, 'store');
      expect(await storeChosen(['--data-dir=~/store'], {}, {})).toBe(inHome);
      expect(await storeChosen([], { SLIDING_CONTEXT_DATA_DIR: '~/store' }, {})).toBe(inHome);
      expect(await storeChosen([], {}, { dataDir: '~/store' })).toBe(inHome);
      expect(cliStoreLocation({ env: {} }, { dataDir: '~' })).toEqual({ dataDir: home });
      for (const kept of ['~other/store', 'store/~/inside', './~']) expect(cliStoreLocation({ env: {} }, { dataDir: kept })).toEqual({ dataDir: kept });
      expect(existsSync(home)).toBe(false);
      expect(existsSync(join(root, '~'))).toBe(false);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe('a relative XDG_DATA_HOME or an empty HOME', () => {
  it('is not taken as a folder under the working directory: the XDG spec ignores a relative one, and the user\'s home is the system\'s', async () => {
    const home = join(directory, 'xdg-home');
    vi.stubEnv('HOME', home);
    try {
      const inHome = join(home, '.local', 'share', 'sliding-context');
      expect(await storeChosen([], { XDG_DATA_HOME: '~/data', HOME: home }, {})).toBe(inHome);
      expect(await storeChosen([], { XDG_DATA_HOME: 'data', HOME: home }, {})).toBe(inHome);
      expect(await storeChosen([], { XDG_DATA_HOME: join(home, 'xdg'), HOME: home }, {})).toBe(join(home, 'xdg', 'sliding-context'));
      vi.stubEnv('HOME', '');
      const own = cliStoreLocation({ env: {} }, { dataDir: '~/store' });
      expect(own).toEqual({ dataDir: join(userInfo().homedir, 'store') });
      expect(isAbsolute((own as { dataDir: string }).dataDir)).toBe(true);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe('commands that read, or need an agent that exists, on a folder that holds no store', () => {
  it('say there is no store (NO_STORE) and create nothing: no folder, no lock', async () => {
    const parent = join(directory, 'readers');
    mkdirSync(parent);
    const missing = join(parent, 'missing');
    const empty = join(parent, 'empty');
    mkdirSync(empty);
    const agentId = '00000000-0000-4000-8000-000000000000';
    const example = readFileSync(join(root, 'examples/coding-agent-session.json'), 'utf8');
    const commands = [
      ['agents'], ['history', agentId], ['window', '--agent', agentId], ['marks', agentId], ['export', agentId],
      ['mark', agentId, 'label'], ['rewind', agentId, 'label'], ['clear', agentId], ['fork', agentId], ['compact', agentId, '--yes'],
      ['import', '-', '--agent', agentId], ['mark', 'not-an-id', 'label'],
    ];
    for (const dataDir of [missing, empty]) {
      for (const args of commands) {
        await expect(runCli([...args, '--data-dir', dataDir], { stdin: example }), args.join(' ')).rejects.toMatchObject({ code: 'NO_STORE', message: expect.stringContaining(dataDir) });
      }
    }
    expect(readdirSync(parent)).toEqual(['empty']);
    expect(readdirSync(empty)).toEqual([]);
  });

  it('the binary refuses a folder that is not a store (NOT_A_STORE) and a missing store (NO_STORE), exit 2, writing nothing', () => {
    const examples = join(directory, 'examples');
    cpSync(join(root, 'examples'), examples, { recursive: true });
    const before = readdirSync(examples);
    const run = (args: string[]) => spawnSync(process.execPath, ['dist/cli/main.js', ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, DATABASE_URL: '' } });
    const notAStore = run(['agents', '--data-dir', examples]);
    expect(notAStore.status).toBe(2);
    expect(notAStore.stderr).toContain(`error[NOT_A_STORE]: The folder ${examples} is not a sliding-context store`);
    expect(readdirSync(examples)).toEqual(before);
    expect(existsSync(`${examples}.lock`)).toBe(false);
    const missing = join(directory, 'no-such-store');
    const noStore = run(['agents', '--data-dir', missing]);
    expect(noStore.status).toBe(2);
    expect(noStore.stderr).toContain(`error[NO_STORE]: There is no store at ${missing}`);
    expect(existsSync(missing)).toBe(false);
    expect(existsSync(`${missing}.lock`)).toBe(false);
  });
});

describe('commands that read, or need an agent that exists, on a server database that holds no store', () => {
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl === undefined || serverUrl === '') {
    it.skip('skipped: DATABASE_URL is not set (CI sets it to the local server)', () => undefined);
    return;
  }

  it('say there is no store (NO_STORE), naming the database and server, and create no table there', async () => {
    const database = await createServerDatabase(serverUrl, 'readers');
    const tables = async () => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        return (await client.query<{ name: string }>(`select table_name as name from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema')`)).rows.map((row) => row.name);
      } finally {
        await client.end();
      }
    };
    try {
      const agentId = '00000000-0000-4000-8000-000000000000';
      const name = new URL(database.url).pathname.slice(1);
      const commands = [['agents'], ['agents', '--json'], ['history', agentId], ['window', '--agent', agentId], ['marks', agentId], ['export', agentId], ['mark', agentId, 'label'], ['fork', agentId], ['import', '-', '--agent', agentId]];
      for (const args of commands) {
        // One message: an import of none is refused before any store is looked at.
        await expect(runCli([...args, '--database-url', database.url], { stdin: JSON.stringify([{ role: 'user', content: 'hello' }]) }), args.join(' ')).rejects.toMatchObject({
          code: 'NO_STORE',
          message: expect.stringMatching(new RegExp(`^There is no store in the database ${name} at 127\\.0\\.0\\.1:\\d+ \\(it holds no sliding-context tables\\); check --database-url \\(or DATABASE_URL\\)`)),
        });
      }
      // DATABASE_URL the same as the flag.
      await expect(runCli(['agents'], { env: { DATABASE_URL: database.url } })).rejects.toMatchObject({ code: 'NO_STORE' });
      expect(await tables()).toEqual([]);
      // A command that creates an agent creates the store; the readers then read it.
      await runCli(['import', '-', '--database-url', database.url], { stdin: JSON.stringify([{ role: 'user', content: 'hello' }]) });
      expect(await tables()).toContain('agents');
      expect(JSON.parse((await runCli(['agents', '--json'], { env: { DATABASE_URL: database.url } })).stdout)).toHaveLength(1);
    } finally {
      await database.drop();
    }
  }, 120_000);
});
