/**
 * Store benchmarks: append rate per engine (one message per commit, and batched), history load
 * time as the history grows, and the cold start of `sliding-context history` on PGlite.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '../src/message/message.js';
import { HistoryStore } from '../src/store/history-store.js';
import { createServerDatabase } from '../src/testing/server-database.js';
import { formatMs, markdownTable, median } from './_table.js';
import { agentConversation } from './conversion.bench.js';

interface Engine {
  readonly name: string;
  /** The PGlite directory, for the cold-start run of the CLI. */
  readonly dataDir?: string;
  open(): Promise<HistoryStore>;
  cleanUp(): Promise<void>;
}

async function engines(): Promise<Engine[]> {
  const directory = mkdtempSync(join(tmpdir(), 'sliding-context-bench-'));
  const dataDir = join(directory, 'data');
  const list: Engine[] = [
    {
      name: 'PGlite',
      dataDir,
      open: () => HistoryStore.open({ dataDir }),
      cleanUp: () => {
        rmSync(directory, { recursive: true, force: true });
        return Promise.resolve();
      },
    },
  ];
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl) {
    const database = await createServerDatabase(serverUrl, 'bench');
    list.push({ name: 'PostgreSQL server', open: () => HistoryStore.open({ databaseUrl: database.url }), cleanUp: () => database.drop() });
  }
  return list;
}

async function fill(store: HistoryStore, agent: string, messages: readonly Message[]) {
  for (let start = 0; start < messages.length; start += 1000) await store.append(agent, messages.slice(start, start + 1000));
}

/** `sliding-context history` in a fresh process against a PGlite store, median of `runs`. */
function coldHistoryMs(dataDir: string, agentId: string, runs: number): number {
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    execFileSync(process.execPath, ['dist/cli/main.js', 'history', agentId, '--data-dir', dataDir], { env: { ...process.env, DATABASE_URL: '' }, stdio: 'ignore' });
    times.push(performance.now() - start);
  }
  return median(times);
}

export async function runStoreBenchmarks(quick: boolean): Promise<string[]> {
  const singles = quick ? 100 : 500;
  const batches = quick ? 10 : 50;
  const sizes = quick ? [10_000] : [10_000, 100_000];
  const appendRows: (string | number)[][] = [];
  const loadRows: (string | number)[][] = [];
  const coldRows: (string | number)[][] = [];
  const available = await engines();
  try {
    for (const engine of available) {
      const store = await engine.open();
      let coldAgent: string | undefined;
      try {
        const agent = await store.createAgent();
        let start = performance.now();
        for (let index = 0; index < singles; index++) await store.append(agent, [{ role: 'user', content: `message ${index}` }]);
        const singleRate = singles / ((performance.now() - start) / 1000);
        const batch = agentConversation(100);
        start = performance.now();
        for (let index = 0; index < batches; index++) await store.append(agent, batch);
        const batchRate = (batches * 100) / ((performance.now() - start) / 1000);
        appendRows.push([engine.name, Math.round(singleRate), Math.round(batchRate)]);
        for (const size of sizes) {
          const grown = await store.createAgent();
          // Each size gets its own ids: the same call ids twice in one agent would not be valid.
          await fill(store, grown, agentConversation(size));
          const times: number[] = [];
          for (let round = 0; round < 3; round++) {
            const begin = performance.now();
            await store.history(grown);
            times.push(performance.now() - begin);
          }
          loadRows.push([engine.name, size.toLocaleString('en-US'), formatMs(median(times))]);
          coldAgent ??= grown;
        }
      } finally {
        await store.close();
      }
      if (engine.dataDir && coldAgent) coldRows.push(['PGlite, 10,000 messages', `${formatMs(coldHistoryMs(engine.dataDir, coldAgent, quick ? 1 : 3))} ms`]);
    }
  } finally {
    for (const engine of available) await engine.cleanUp();
  }
  const server = process.env.DATABASE_URL ? '' : ' (no server: DATABASE_URL is not set)';
  return [
    `### Store: appends per second${server}\n\n${markdownTable(['engine', 'one message per commit', 'batched, 100 per commit'], appendRows)}`,
    `### Store: loading an agent's history by replay\n\n${markdownTable(['engine', 'messages', 'median ms'], loadRows)}\n\nA conversation is opened by replaying its history since the last \`clear\`, which grows with the history; loading only the window, in O(log n + k), is not built yet.`,
    `### Store: cold start of \`sliding-context history\` (goal: under 1 s)\n\n${markdownTable(['store', 'median, fresh process'], coldRows)}`,
  ];
}
