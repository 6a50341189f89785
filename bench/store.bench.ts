/**
 * Store benchmarks: append rate per engine (one message per commit, and batched), one append of
 * a tool result by its size, the time to open a conversation (load its window) as the history
 * grows to 1M messages, and the cold start of `sliding-context history` on PGlite, on the
 * longest history too.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newAgentMeta } from '../src/conversation/agent-settings.js';
import { openConversation } from '../src/conversation/conversation.js';
import type { Message } from '../src/message/message.js';
import { HistoryStore } from '../src/store/history-store.js';
import { createServerDatabase } from '../src/testing/server-database.js';
import { loadTokenCounter } from '../src/tokens/load-token-counter.js';
import type { TokenCounter } from '../src/tokens/token-counter.js';
import { formatMs, formatRatio, markdownTable, median, percentile } from './_table.js';
import { agentConversation } from './conversion.bench.js';
import { appendCounted } from './workloads/append-counted.js';

interface Engine {
  readonly name: string;
  /** The PGlite directory, for the cold-start run of the CLI. */
  readonly dataDir?: string;
  open(): Promise<HistoryStore>;
  cleanUp(): Promise<void>;
}

const target = { provider: 'openai', model: 'gpt-4o' };
const BUDGET = 100_000;

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

/**
 * Creates an agent as a conversation would, then stores `size` messages of agent traffic with
 * their counts, in parts so that a million messages never sit in memory at once.
 */
async function storedAgent(store: HistoryStore, counter: TokenCounter, size: number): Promise<string> {
  const agent = await store.createAgent(newAgentMeta(target, { budgetTokens: BUDGET }, counter.countPreamble(target)));
  const part = 10_000;
  for (let start = 0; start < size; start += part) {
    // 4 messages a turn: each part continues the turn numbering, so call ids stay unique.
    await appendCounted(store, agent, agentConversation(Math.min(part, size - start), start / 4), counter, target);
  }
  return agent;
}

/**
 * `sliding-context history` in a fresh process against a PGlite store: the first run after the
 * store was written (it reads PGlite and saves the outline), then the median of `runs` more.
 */
function coldHistoryMs(dataDir: string, agentId: string, runs: number): { first: number; later: number } {
  const times: number[] = [];
  for (let run = 0; run <= runs; run++) {
    const start = performance.now();
    execFileSync(process.execPath, ['dist/cli/main.js', 'history', agentId, '--data-dir', dataDir], { env: { ...process.env, DATABASE_URL: '' }, stdio: 'ignore' });
    times.push(performance.now() - start);
  }
  return { first: times[0] ?? Number.NaN, later: median(times.slice(1)) };
}

/**
 * One append timed from the agent's tip and the long way, alternately, on two agents holding the same
 * history: an idempotency key sends an append the long way (the agent's row locked and read, the
 * exchange a tool result joins read), so both are measured in one run. Median ms of each, per turn
 * shape: a user turn (the answer, then the next question) and a tool loop's step (the call, then its result).
 */
async function tipAgainstLongWay(store: HistoryStore, rounds: number): Promise<(string | number)[][]> {
  const history = agentConversation(100);
  const [fromTip, longWay] = [await store.createAgent(), await store.createAgent()];
  for (const agent of [fromTip, longWay]) await store.append(agent, history);
  const shapes: [string, (round: number) => Message[][]][] = [
    ['a user turn: the answer, then the next question', (round) => [[{ role: 'assistant', content: `answer ${round}` }], [{ role: 'user', content: `question ${round}` }]]],
    [
      'a tool step: the call, then its result',
      (round) => [
        [{ role: 'assistant', content: [{ type: 'tool-call', toolCallId: `bench-${round}`, toolName: 'read_file', input: { path: 'a.ts' } }] }],
        [{ role: 'tool', content: [{ type: 'tool-result', toolCallId: `bench-${round}`, toolName: 'read_file', output: { type: 'text', value: 'export {}' } }] }],
      ],
    ],
  ];
  let key = 0;
  const rows: (string | number)[][] = [];
  for (const [shape, batchesOf] of shapes) {
    // Each turn starts an exchange, so that a tool step's result joins the call just stored.
    for (const agent of [fromTip, longWay]) await store.append(agent, [{ role: 'user', content: 'next' }], { idempotencyKey: `start ${String(key++)}` });
    const times: [number[], number[]] = [[], []];
    for (let round = 0; round < rounds; round++) {
      for (const batch of batchesOf(round)) {
        for (const [index, agent] of [fromTip, longWay].entries()) {
          const start = performance.now();
          await store.append(agent, batch, index === 0 ? {} : { idempotencyKey: `long way ${String(key++)}` });
          times[index]?.push(performance.now() - start);
        }
      }
    }
    const [tip, long] = times.map(median) as [number, number];
    rows.push([shape, formatMs(tip), formatMs(long), formatRatio(long / tip)]);
  }
  return rows;
}

async function timeMedianAsync(repeat: number, work: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let round = 0; round < repeat; round++) {
    const start = performance.now();
    await work();
    times.push(performance.now() - start);
  }
  return median(times);
}

/**
 * The store contract's race at full size (the test runs 4 × 50): `writers` writers on one store
 * append `each` one-message turns to one agent at once. Returns the messages stored, whether
 * their seqs run 1, 2, 3… without a gap, how many acknowledged appends are missing, and the rate.
 */
async function writersRace(store: HistoryStore, writers: number, each: number): Promise<(string | number)[]> {
  const agent = await store.createAgent();
  const start = performance.now();
  await Promise.all(Array.from({ length: writers }, async (_, writer) => {
    for (let index = 0; index < each; index++) await store.append(agent, [{ role: 'user', content: `${String(writer)}:${String(index)}` }]);
  }));
  const seconds = (performance.now() - start) / 1000;
  const history = await store.history(agent);
  const gapless = history.every((entry, index) => entry.seq === index + 1);
  const stored = new Set(history.map((entry) => JSON.stringify(entry.message)));
  return [`${String(writers)} × ${String(each)}`, history.length, gapless ? 'yes' : 'no', writers * each - stored.size, Math.round((writers * each) / seconds)];
}

/**
 * `agents` agents appending one-message turns side by side on a server, each as fast as the store
 * takes them (`each` timed appends after one untimed), through one store with a connection per
 * agent; with `listening`, another store listens to the writes meanwhile (as an open web view
 * does), so that every write sends its NOTIFY. Appends per second, and p50 and p95 ms of one append.
 */
async function sideBySide(url: string, agents: number, each: number, listening: boolean): Promise<(string | number)[]> {
  const [writer, listener] = await Promise.all([HistoryStore.open({ databaseUrl: url, connections: agents }), HistoryStore.open({ databaseUrl: url })]);
  const stop = listening ? await listener.onWrite(() => undefined) : undefined;
  try {
    const ids = await Promise.all(Array.from({ length: agents }, () => writer.createAgent()));
    await Promise.all(ids.map((agent) => writer.append(agent, [{ role: 'user', content: 'first' }])));
    const times: number[] = [];
    const start = performance.now();
    await Promise.all(ids.map(async (agent) => {
      for (let index = 0; index < each; index++) {
        const began = performance.now();
        await writer.append(agent, [{ role: index % 2 === 0 ? 'assistant' : 'user', content: `turn ${String(index)}` }]);
        times.push(performance.now() - began);
      }
    }));
    const rate = (agents * each) / ((performance.now() - start) / 1000);
    return [agents, listening ? 'yes: every write notifies' : 'no: no write notifies', Math.round(rate), formatMs(percentile(times, 0.5)), formatMs(percentile(times, 0.95))];
  } finally {
    await stop?.();
    await Promise.all([writer.close(), listener.close()]);
  }
}

/** A tool result of about `bytes` bytes of text, as an agent reads a file: words, paths, numbers. */
function toolResultOf(bytes: number, index: number): Message[] {
  const line = `src/module-${String(index)}/file.ts:42 export function handle(request) { return request.body; } // checked 17 times\n`;
  const toolCallId = `call_${String(index)}`;
  return [
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId, toolName: 'read_file', input: { path: 'src/file.ts' } }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId, toolName: 'read_file', output: { type: 'text', value: line.repeat(Math.ceil(bytes / line.length)) } }] },
  ];
}

/**
 * One append of a tool result of about `bytes` bytes (its call appended before, untimed), and the
 * writing of its search text after it: median ms of `rounds` each.
 */
async function appendBySize(store: HistoryStore, bytes: number, rounds: number): Promise<{ append: number; searchText: number }> {
  const agent = await store.createAgent();
  await store.append(agent, [{ role: 'user', content: 'read the files' }]);
  const appends: number[] = [];
  const searchTexts: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const [call, result] = toolResultOf(bytes, round) as [Message, Message];
    await store.append(agent, [call]);
    await store.searchTextFilled();
    let start = performance.now();
    await store.append(agent, [result]);
    appends.push(performance.now() - start);
    start = performance.now();
    await store.searchTextFilled();
    searchTexts.push(performance.now() - start);
  }
  return { append: median(appends), searchText: median(searchTexts) };
}

export async function runStoreBenchmarks(quick: boolean): Promise<string[]> {
  const singles = quick ? 100 : 500;
  const batches = quick ? 10 : 50;
  const sizes = quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000];
  const counter = await loadTokenCounter();
  const appendRows: (string | number)[][] = [];
  const raceRows: (string | number)[][] = [];
  const bySizeRows: (string | number)[][] = [];
  const tipRows: (string | number)[][] = [];
  const loadRows: (string | number)[][] = [];
  const coldRows: (string | number)[][] = [];
  const available = await engines();
  try {
    for (const engine of available) {
      const store = await engine.open();
      let coldAgent: string | undefined;
      // The longest agent: `history` must draw it too (a million messages in the full run).
      let longest: { agentId: string; size: number } | undefined;
      try {
        const agent = await store.createAgent();
        let start = performance.now();
        for (let index = 0; index < singles; index++) await store.append(agent, [{ role: 'user', content: `message ${index}` }]);
        const singleRate = singles / ((performance.now() - start) / 1000);
        const batch = agentConversation(100);
        start = performance.now();
        for (let index = 0; index < batches; index++) await store.append(agent, agentConversation(100, index * 25));
        const batchRate = (batches * batch.length) / ((performance.now() - start) / 1000);
        appendRows.push([engine.name, Math.round(singleRate), Math.round(batchRate)]);
        raceRows.push([engine.name, ...await writersRace(store, 4, quick ? 50 : 500)]);
        for (const bytes of [1_000, 10_000, 50_000]) {
          const { append, searchText } = await appendBySize(store, bytes, quick ? 10 : 40);
          bySizeRows.push([engine.name, `${(bytes / 1000).toFixed(0)} KB`, formatMs(append), formatMs(searchText)]);
        }
        for (const row of await tipAgainstLongWay(store, quick ? 50 : 300)) tipRows.push([engine.name, ...row]);
        let smallest: number | undefined;
        for (const size of sizes) {
          const grown = await storedAgent(store, counter, size);
          const open = () => openConversation({ store, agentId: grown, ...target, counter });
          const conversation = await open();
          const { report } = await conversation.request();
          const openMs = await timeMedianAsync(5, async () => (await open()).request());
          const replayMs = size <= 100_000 ? await timeMedianAsync(3, () => store.history(grown)) : undefined;
          const viewMs = size <= 100_000 ? await timeMedianAsync(3, () => conversation.history()) : undefined;
          smallest ??= openMs;
          loadRows.push([
            engine.name,
            size.toLocaleString('en-US'),
            report.messages.length.toLocaleString('en-US'),
            formatMs(openMs),
            formatRatio(openMs / smallest),
            replayMs === undefined ? '(not run)' : formatMs(replayMs),
            viewMs === undefined ? '(not run)' : formatMs(viewMs),
          ]);
          coldAgent ??= grown;
          longest = { agentId: grown, size };
        }
      } finally {
        await store.close();
      }
      if (engine.dataDir && coldAgent) {
        const { first, later } = coldHistoryMs(engine.dataDir, coldAgent, quick ? 3 : 9);
        coldRows.push(['PGlite, 10,000 messages', `${formatMs(first)} ms`, `${formatMs(later)} ms`]);
      }
      if (engine.dataDir && longest) {
        const { first, later } = coldHistoryMs(engine.dataDir, longest.agentId, 1);
        coldRows.push([`PGlite, ${longest.size.toLocaleString('en-US')} messages`, `${formatMs(first)} ms`, `${formatMs(later)} ms`]);
      }
    }
  } finally {
    for (const engine of available) await engine.cleanUp();
  }
  const notifyRows: (string | number)[][] = [];
  if (process.env.DATABASE_URL) {
    const database = await createServerDatabase(process.env.DATABASE_URL, 'bench_notify');
    try {
      // Alternating, twice each: the machine's drift shows as a difference between the two rounds of a kind.
      for (const agents of [1, 20]) {
        const each = agents === 1 ? (quick ? 100 : 400) : (quick ? 20 : 100);
        for (const listening of [false, true, false, true]) notifyRows.push(await sideBySide(database.url, agents, each, listening));
      }
    } finally {
      await database.drop();
    }
  }
  const server = process.env.DATABASE_URL ? '' : ' (no server: DATABASE_URL is not set)';
  return [
    `### Store: appends per second${server}\n\n${markdownTable(['engine', 'one message per commit', 'batched, 100 per commit'], appendRows)}`,
    `### Store: writers appending to one agent at once (goal: seqs without a gap, nothing lost)${server}\n\n${markdownTable(['engine', 'writers × appends', 'messages stored', 'seqs without a gap', 'acknowledged and missing', 'appends per second'], raceRows)}\n\nThe store contract's race (\`npm test\` runs 4 × 50) at full size: four writers on one store, each appending its one-message turns to the same agent as fast as the store takes them. A server orders them by the agent's row lock, PGlite by its one session's queue.`,
    `### Store: agents appending side by side on a server, with and without a store listening${server}\n\n${markdownTable(['agents side by side', 'a store listening', 'appends per second', 'append p50 ms', 'p95 ms'], notifyRows)}\n\nEach agent appends one-message turns as fast as the store takes them, through one store with a connection per agent. A write sends its NOTIFY (for the web view) only while some store listens: PostgreSQL holds one lock for every notifying transaction from just before its commit until the commit is flushed, so notifying commits cannot be flushed together. The rows alternate; the rows with a store listening are what every write paid before writes checked for one.`,
    `### Store: appending one tool result, by its size, median ms${server}\n\n${markdownTable(['engine', 'tool result', 'append (on the model call\'s path)', 'its search text, written after'], bySizeRows)}\n\nA file's lines, as an agent's \`read_file\` returns them, appended alone after the call that asked for them. The message's search text (the \`tsvector\` that \`search\` and recall use) is not made by the append: \`HistoryStore\` writes it a little after, in its own statement (timed here by waiting for it with \`searchTextFilled()\`), so its cost, which grows with the text, is off the path of the model call the append comes before.`,
    `### Store: one append from the agent's tip against the long way, median ms${server}\n\n${markdownTable(['engine', 'each turn', 'from the tip', 'the long way', 'long way / tip'], tipRows)}\n\nTwo agents with the same 100-message history, appended to alternately; each timed append is one of the turn's two. From the tip, the store starts from what its last append to the agent left (its last seq, the digest of what the model sees, the exchange open) and its write names the last seq it started from; the long way (forced here with an idempotency key) locks and reads the agent's row, and reads the exchange a tool result joins.`,
    `### Store: opening a conversation as the history grows, budget 100,000 tokens (goal: 1M within 1.5× of 10k)\n\n${markdownTable(
      ['engine', 'history messages', 'window messages', 'open + first request, median ms', 'vs 10k', 'replaying the whole history, ms', 'the /history view, ms'],
      loadRows,
    )}\n\nOpening reads only the window: the newest exchanges back to the budget, with marks and rewinds resolved from the event rows alone. Replaying the history (\`HistoryStore.history\`, every body) grows with it; the \`/history\` view (\`conversation.history()\`) is planned from the stored outline of each message (role, count, title, tool calls) and reads no bodies.`,
    `### Store: cold start of \`sliding-context history\` (goal: under 1 s)\n\n${markdownTable(
      ['store', 'first run after a write: PGlite, then the outline saved', 'later runs: the saved outline, median'],
      coldRows,
    )}\n\nEach run is a fresh process; the longest history is drawn too, once each way, so that it is known to work at that size. A write through the library (as here) drops the saved outline, so the first run reads PGlite; the CLI's commands that write save it as they finish (up to 20,000 messages), so after them even the first run reads the saved outline.`,
  ];
}
