import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { HistoryStore } from './history-store.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'sliding-context-lock-'));
  directories.push(directory);
  return directory;
}

/** The pid of a process that has exited: what a lock left by a crash names. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '']).pid;
}

/** A lock left by a crashed holder: the bare pid older versions wrote, or today's JSON. */
function writeStaleLock(dataDir: string, pid: number, round: number): void {
  const content = round % 2 === 0 ? String(pid) : JSON.stringify({ pid, command: 'sliding-context chat', nonce: `crashed-${round}` });
  writeFileSync(`${dataDir}.lock`, content, { mode: 0o600 });
}

/** A racing child of `_test-lock-child.ts`, with the lines it has printed. */
interface Racer {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: string[];
}

async function startRacers(count: number, args: readonly string[]): Promise<Racer[]> {
  const racers = Array.from({ length: count }, () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/store/_test-lock-child.ts', ...args], { cwd: root });
    const racer: Racer = { child, lines: [] };
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      racer.lines.push(...lines);
    });
    child.stderr.on('data', (chunk: Buffer) => racer.lines.push(`stderr ${chunk.toString('utf8')}`));
    return racer;
  });
  await waitUntil(() => racers.every((racer) => racer.lines.includes('ready')));
  return racers;
}

async function waitUntil(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('the children did not answer within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Starts a round in every racer at the same moment; resolves with each racer's answer. */
async function raceRound(racers: readonly Racer[], round: number, startInMs = 100): Promise<string[]> {
  const startAt = Date.now() + startInMs;
  for (const racer of racers) racer.child.stdin.write(`go ${round} ${startAt}\n`);
  const answer = (racer: Racer) => racer.lines.find((line) => line.startsWith(`done ${round} `) || line.startsWith('error') || line.startsWith('stderr'));
  await waitUntil(() => racers.every((racer) => answer(racer) !== undefined));
  return racers.map((racer) => answer(racer) ?? '');
}

async function stopRacers(racers: readonly Racer[]): Promise<void> {
  await Promise.all(racers.map((racer) => {
    racer.child.stdin.end();
    return new Promise((resolve) => racer.child.once('exit', resolve));
  }));
}

/** The holders of each round, in order, after checking that no two ever held the lock at once. */
function holdersOneAtATime(log: string): Map<string, string[]> {
  const holders = new Map<string, string[]>();
  let holding: string | undefined;
  for (const line of log.split('\n').filter(Boolean)) {
    const [event, round = '', pid = ''] = line.split(' ');
    if (event === 'enter') {
      expect(holding, `process ${pid} took the lock while process ${String(holding)} held it (round ${round})`).toBeUndefined();
      holding = pid;
      holders.set(round, [...(holders.get(round) ?? []), pid]);
    } else {
      expect(holding).toBe(pid);
      holding = undefined;
    }
  }
  return holders;
}

describe('the lock beside a PGlite directory', () => {
  it('lets exactly one of 8 processes take over a stale lock, in each of 20 rounds, and names the holder to the others', async () => {
    const directory = temporaryDirectory();
    const dataDir = join(directory, 'data');
    mkdirSync(dataDir);
    const log = join(directory, 'holders.log');
    writeFileSync(log, '');
    const racers = await startRacers(8, ['lock', dataDir, log]);
    try {
      const crashed = deadPid();
      for (let round = 0; round < 20; round++) {
        writeStaleLock(dataDir, crashed, round);
        const answers = await raceRound(racers, round);
        expect(answers.filter((answer) => !answer.startsWith(`done ${round} `))).toEqual([]);
        const holders = holdersOneAtATime(readFileSync(log, 'utf8')).get(String(round)) ?? [];
        expect(holders.length).toBeGreaterThanOrEqual(1);
        for (const refusal of answers.filter((answer) => answer.includes('refused'))) {
          const named = /in use by process (\d+) \((.*)\)/.exec(refusal);
          expect(named, refusal).not.toBeNull();
          expect(holders).toContain(named?.[1]);
          expect(named?.[2]).toMatch(/_test-lock-child\.ts lock /);
        }
        expect(existsSync(`${dataDir}.lock`)).toBe(false);
      }
    } finally {
      await stopRacers(racers);
    }
  }, 300_000);

  it('loses no acknowledged append when 4 processes open a store with a stale lock at once, 3 rounds', async () => {
    const directory = temporaryDirectory();
    const dataDir = join(directory, 'data');
    const setup = await HistoryStore.open({ dataDir });
    const agentId = await setup.createAgent();
    await setup.close();
    const log = join(directory, 'holders.log');
    writeFileSync(log, '');
    const racers = await startRacers(4, ['append', dataDir, log, agentId]);
    try {
      const crashed = deadPid();
      for (let round = 0; round < 3; round++) {
        writeStaleLock(dataDir, crashed, round);
        const answers = await raceRound(racers, round, 300);
        expect(answers.filter((answer) => !answer.startsWith(`done ${round} `))).toEqual([]);
      }
    } finally {
      await stopRacers(racers);
    }
    holdersOneAtATime(readFileSync(log, 'utf8'));
    const acknowledged = racers.flatMap((racer) => racer.lines.filter((line) => line.startsWith('ACK ')).map((line) => line.slice(4)));
    expect(acknowledged.length).toBeGreaterThanOrEqual(3);
    const store = await HistoryStore.open({ dataDir });
    try {
      const stored = (await store.history(agentId)).map((entry) => ('content' in entry.message ? entry.message.content : undefined));
      expect(stored).toEqual(expect.arrayContaining(acknowledged));
      expect(stored).toHaveLength(acknowledged.length);
    } finally {
      await store.close();
    }
  }, 300_000);

  it('refuses cleanly (STORE_LOCKED), never with a raw error, while other processes take and release the lock', async () => {
    const directory = temporaryDirectory();
    const dataDir = join(directory, 'data');
    mkdirSync(dataDir);
    const racers = await startRacers(3, ['churn', dataDir, join(directory, 'unused.log')]);
    try {
      const answers = await raceRound(racers, 0, 1_500);
      expect(answers).toEqual(['done 0 churned', 'done 0 churned', 'done 0 churned']);
    } finally {
      await stopRacers(racers);
    }
  }, 60_000);
});
