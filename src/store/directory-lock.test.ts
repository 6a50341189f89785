import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acknowledgedAppends, deadPid, raceRound, readHolders, startRacers, stopRacers, writeStaleLock } from './_test-lock-racers.js';
import { HistoryStore } from './history-store.js';

const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'sliding-context-lock-'));
  directories.push(directory);
  return directory;
}

describe('the lock beside a PGlite directory', () => {
  // Six rounds catch a takeover that removes a lock it did not read; `npm run bench -- --only lock` races 8 processes for 20 rounds.
  it('lets exactly one of 8 processes take over a stale lock, in each of 6 rounds, and names the holder to the others', async () => {
    const directory = temporaryDirectory();
    const dataDir = join(directory, 'data');
    mkdirSync(dataDir);
    const log = join(directory, 'holders.log');
    writeFileSync(log, '');
    const racers = await startRacers(8, ['lock', dataDir, log]);
    try {
      const crashed = deadPid();
      for (let round = 0; round < 6; round++) {
        writeStaleLock(dataDir, crashed, round);
        const answers = await raceRound(racers, round);
        expect(answers.filter((answer) => !answer.startsWith(`done ${round} `))).toEqual([]);
        const { holders: byRound, overlaps } = readHolders(readFileSync(log, 'utf8'));
        expect(overlaps).toEqual([]);
        const holders = byRound.get(String(round)) ?? [];
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
    expect(readHolders(readFileSync(log, 'utf8')).overlaps).toEqual([]);
    const acknowledged = acknowledgedAppends(racers);
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
