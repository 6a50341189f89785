import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createServerDatabase } from '../testing/server-database.js';
import { HistoryStore } from './history-store.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const ROUNDS = 6;

/** Runs the appending child until it is killed after `killAfterMs`; returns the highest seq it acknowledged. */
async function appendUntilKilled(location: string, agentId: string, killAfterMs: number): Promise<number> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/store/_test-append-child.ts', location, agentId], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let acknowledged = 0;
  let buffer = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      const match = /^ACK (\d+)$/.exec(line);
      if (match) acknowledged = Math.max(acknowledged, Number(match[1]));
    }
  });
  // Kill once appends are flowing, at a random moment after that.
  await new Promise<void>((resolve) => {
    const started = setInterval(() => {
      if (acknowledged > 0) {
        clearInterval(started);
        setTimeout(resolve, killAfterMs);
      }
    }, 5);
  });
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  return acknowledged;
}

async function checkAfterCrash(open: () => Promise<HistoryStore>, agentId: string, acknowledged: number) {
  const store = await open();
  try {
    const seqs = (await store.history(agentId)).map((entry) => entry.seq);
    // Stored ≥ acknowledged, no gaps, and nothing from an uncommitted transaction (a gap or a
    // torn batch would show as a missing seq or a seq past the agent's counter).
    expect(seqs.length).toBeGreaterThanOrEqual(acknowledged);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, index) => index + 1));
    // A server may still finish the killed writer's last COMMIT after the read above, so the
    // append is checked against the history read after it: next in line, with no gap before it.
    const append = await store.append(agentId, [{ role: 'user', content: 'after the crash' }]);
    const after = (await store.history(agentId)).map((entry) => entry.seq);
    expect(after).toEqual(Array.from({ length: after.length }, (_, index) => index + 1));
    expect(append.firstSeq).toBe(after.length);
    expect(append.firstSeq).toBeGreaterThan(seqs.length);
  } finally {
    await store.close();
  }
}

describe('a writer killed with SIGKILL loses nothing it acknowledged', () => {
  const directories: string[] = [];
  afterAll(() => {
    for (const directory of directories) rmSync(directory, { recursive: true, force: true });
  });

  it(`PGlite: ${ROUNDS} rounds`, async () => {
    const directory = mkdtempSync(join(tmpdir(), 'sliding-context-crash-'));
    directories.push(directory);
    const dataDir = join(directory, 'data');
    const setup = await HistoryStore.open({ dataDir });
    const agentId = await setup.createAgent();
    await setup.close();
    for (let round = 0; round < ROUNDS; round++) {
      const acknowledged = await appendUntilKilled(dataDir, agentId, Math.floor(Math.random() * 150));
      await checkAfterCrash(() => HistoryStore.open({ dataDir }), agentId, acknowledged);
    }
  }, 300_000);

  const serverUrl = process.env.DATABASE_URL;
  it.skipIf(!serverUrl)(`PostgreSQL server: ${ROUNDS} rounds`, async () => {
    const database = await createServerDatabase(serverUrl ?? '', 'crash');
    try {
      const setup = await HistoryStore.open({ databaseUrl: database.url });
      const agentId = await setup.createAgent();
      await setup.close();
      for (let round = 0; round < ROUNDS; round++) {
        const acknowledged = await appendUntilKilled(database.url, agentId, Math.floor(Math.random() * 150));
        await checkAfterCrash(() => HistoryStore.open({ databaseUrl: database.url }), agentId, acknowledged);
      }
    } finally {
      await database.drop();
    }
  }, 300_000);
});
