/**
 * The stale-lock race at full size: 20 rounds in which 8 processes open one PGlite store whose
 * lock names a crashed process, each appending once if it gets the store. Reports the holders per
 * round and whether every acknowledged append is in the store (the test runs a smaller race).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acknowledgedAppends, deadPid, raceRound, readHolders, startRacers, stopRacers, writeStaleLock } from '../src/store/_test-lock-racers.js';
import { HistoryStore } from '../src/store/history-store.js';
import { formatMs, markdownTable } from './_table.js';

export async function runLockRaceBenchmarks(quick: boolean): Promise<string[]> {
  const rounds = quick ? 5 : 20;
  const processes = 8;
  const directory = mkdtempSync(join(tmpdir(), 'sliding-context-bench-lock-'));
  try {
    const dataDir = join(directory, 'data');
    const setup = await HistoryStore.open({ dataDir });
    const agentId = await setup.createAgent();
    await setup.close();
    const log = join(directory, 'holders.log');
    writeFileSync(log, '');
    const racers = await startRacers(processes, ['append', dataDir, log, agentId]);
    const crashed = deadPid();
    const durations: number[] = [];
    const unforeseen: string[] = [];
    try {
      for (let round = 0; round < rounds; round++) {
        writeStaleLock(dataDir, crashed, round);
        const start = performance.now();
        const answers = await raceRound(racers, round, 300);
        durations.push(performance.now() - start - 300);
        unforeseen.push(...answers.filter((answer) => !answer.startsWith(`done ${round} `)));
      }
    } finally {
      await stopRacers(racers);
    }
    const { holders, overlaps } = readHolders(readFileSync(log, 'utf8'));
    const acknowledged = acknowledgedAppends(racers);
    const store = await HistoryStore.open({ dataDir });
    const stored = new Set((await store.history(agentId)).map((entry) => ('content' in entry.message && typeof entry.message.content === 'string' ? entry.message.content : '')));
    await store.close();
    const lost = acknowledged.filter((content) => !stored.has(content));
    const table = markdownTable(
      ['rounds × processes', 'holders per round (min–max)', 'two holders at once', 'acknowledged', 'lost', 'other errors', 'round (median ms)'],
      [[
        `${rounds} × ${processes}`,
        `${Math.min(...[...holders.values()].map((list) => list.length))}–${Math.max(...[...holders.values()].map((list) => list.length))}`,
        overlaps.length,
        acknowledged.length,
        lost.length,
        unforeseen.length,
        formatMs([...durations].sort((a, b) => a - b)[Math.floor(durations.length / 2)] ?? 0),
      ]],
    );
    return [`## Stale-lock race (PGlite, real processes)\n\n${table}`];
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
