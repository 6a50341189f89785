import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { Message } from '../../message/message.js';
import { HistoryStore } from '../../store/history-store.js';
import type { StoreLocation } from '../../store/open-database.js';
import { createServerDatabase } from '../../testing/server-database.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const MESSAGES = 3000;
const directory = mkdtempSync(join(tmpdir(), 'sliding-context-import-interrupted-'));
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

/** A conversation file large enough that storing it takes several statements. */
const conversationFile = (() => {
  const messages: Message[] = Array.from({ length: MESSAGES }, (_, index) =>
    index % 2 === 0 ? { role: 'user', content: `question ${index}: ${'words '.repeat(20)}` } : { role: 'assistant', content: `answer ${index}` },
  );
  const path = join(directory, 'conversation.json');
  writeFileSync(path, JSON.stringify(messages));
  return path;
})();

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      resolve({ code, signal });
    });
  });
}

/** Either no agent, or one holding the whole import: never a part of it. */
async function expectNothingOrAll(location: StoreLocation) {
  const store = await HistoryStore.open(location);
  try {
    const agents = await store.listAgents();
    expect(agents.length).toBeLessThanOrEqual(1);
    for (const agent of agents) expect(agent.messages).toBe(MESSAGES);
    return agents.length;
  } finally {
    await store.close();
  }
}

/** Runs the importing child and kills it with SIGKILL `delayMs` after it starts storing. */
async function importUntilKilled(location: string, delayMs: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/commands/_test-import-child.ts', location, conversationFile], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    // The first redraw of the storing bar: 1,000 rows are written in the open transaction.
    if (/storing +\[#*\s*\] [1-9]/.test(stderr)) setTimeout(() => child.kill('SIGKILL'), delayMs);
  });
  const { signal } = await exited(child);
  expect(stderr).toMatch(/storing/);
  return signal;
}

describe('import killed with SIGKILL while it stores', () => {
  it('PGlite: leaves no agent, or the whole import', async () => {
    const dataDir = join(directory, 'killed-data');
    for (const delayMs of [0, 200]) {
      await importUntilKilled(dataDir, delayMs);
      await expectNothingOrAll({ dataDir });
    }
  }, 300_000);

  const serverUrl = process.env.DATABASE_URL;
  it.skipIf(!serverUrl)('PostgreSQL server: leaves no agent, or the whole import', async () => {
    const database = await createServerDatabase(serverUrl ?? '', 'import_killed');
    try {
      await importUntilKilled(database.url, 0);
      expect(await expectNothingOrAll({ databaseUrl: database.url })).toBe(0);
    } finally {
      await database.drop();
    }
  }, 300_000);
});

/** The built binary, run on the conversation file, signalled once `ready` resolves. */
async function interruptImport(flags: readonly string[], signal: NodeJS.Signals, ready: () => Promise<void>) {
  const child = spawn(process.execPath, ['dist/cli/main.js', 'import', conversationFile, '--json', ...flags], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exit = exited(child);
  await Promise.race([ready(), exit]);
  child.kill(signal);
  return { ...(await exit), output };
}

const poll = async (condition: () => boolean | Promise<boolean>) => {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 10));
};

describe('import interrupted by Ctrl-C or SIGTERM (the built binary)', () => {
  it.skipIf(!existsSync(join(root, 'dist/cli/main.js')))('PGlite: rolls back, stores nothing, exits 130 or 143', async () => {
    for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
      const dataDir = join(directory, `interrupted-${signal}`);
      // The lock file appears when the store opens: the import is under way.
      const result = await interruptImport(['--data-dir', dataDir], signal, () => poll(() => existsSync(`${dataDir}.lock`)));
      expect(result, result.output).toMatchObject({ code, signal: null });
      expect(await expectNothingOrAll({ dataDir })).toBe(0);
    }
  }, 300_000);

  it.skipIf(!existsSync(join(root, 'dist/cli/main.js')))('PGlite: interrupted at any moment of storing, the exit code says whether it was stored (130 nothing, 0 all)', async () => {
    for (const delayMs of [0, 100, 250, 500, 1000]) {
      const dataDir = join(directory, `late-${String(delayMs)}`);
      // From the first redraw of the storing bar.
      let output = '';
      const child = spawn(process.execPath, ['dist/cli/main.js', 'import', conversationFile, ...['--data-dir', dataDir]], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } });
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      const exit = exited(child);
      await Promise.race([poll(() => existsSync(`${dataDir}.lock`)), exit]);
      setTimeout(() => child.kill('SIGINT'), delayMs);
      const { code, signal } = await exit;
      const stored = await expectNothingOrAll({ dataDir });
      if (signal === 'SIGINT') {
        // Signalled after the command had finished and stopped listening: it had stored everything.
        expect(stored, output).toBe(1);
      } else {
        expect({ code, stored }, output).toEqual(stored === 1 ? { code: 0, stored: 1 } : { code: 130, stored: 0 });
        // Stored: said either way, by the line an import prints, or, when the signal came before it, by the interruption's.
        if (stored === 1) expect(output).toMatch(/interrupted after the import was stored|imported 3,000 messages/);
      }
    }
  }, 300_000);

  const serverUrl = process.env.DATABASE_URL;
  it.skipIf(!serverUrl || !existsSync(join(root, 'dist/cli/main.js')))('PostgreSQL server: interrupted inside its transaction, stores nothing', async () => {
    const database = await createServerDatabase(serverUrl ?? '', 'import_interrupted');
    const watcher = new pg.Pool({ connectionString: database.url, max: 1 });
    try {
      const name = new URL(database.url).pathname.slice(1);
      // A backend with a transaction id has written: the agent is inserted, the messages are going in.
      const writing = async () => {
        const { rows } = await watcher.query<{ writing: string }>('select count(*) as writing from pg_stat_activity where datname = $1 and backend_xid is not null and pid <> pg_backend_pid()', [name]);
        return Number(rows[0]?.writing) > 0;
      };
      const result = await interruptImport(['--database-url', database.url], 'SIGINT', () => poll(writing));
      expect(result, result.output).toMatchObject({ code: 130, signal: null });
      expect(await expectNothingOrAll({ databaseUrl: database.url })).toBe(0);
    } finally {
      await watcher.end();
      await database.drop();
    }
  }, 300_000);
});
