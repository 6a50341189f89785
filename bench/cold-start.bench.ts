/**
 * Cold start of the command line: each command in a fresh process against a store that holds a
 * few agents, on PGlite and on the PostgreSQL server (when DATABASE_URL is set), beside
 * `node -e 0`, the least a process can cost. Runs the built CLI (dist/), as users do.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServerDatabase } from '../src/testing/server-database.js';
import { formatMs, markdownTable, median } from './_table.js';

const CLI = 'dist/cli/main.js';
/** The agent the reading commands show: the bundled 530-message coding session. */
const SESSION = 'examples/coding-agent-session.json';
const GOAL_MS = 600;

/** A conversation of `turns` user/assistant turns after a system prompt, as an OpenAI body. */
function chatBody(turns: number): string {
  const messages: { role: string; content: string }[] = [{ role: 'system', content: 'You are a careful assistant.' }];
  for (let turn = 1; turn <= turns; turn++) {
    messages.push({ role: 'user', content: `Question ${turn}: what changed in step ${turn}?` }, { role: 'assistant', content: `Step ${turn} renamed one function and added its test.` });
  }
  return JSON.stringify({ model: 'gpt-4o', messages });
}

/** A store location as the CLI's flags give it; the server column passes its URL, PGlite its directory. */
interface Column {
  readonly name: string;
  readonly flags: readonly string[];
}

/** One command of the table: its arguments for run `run` (0 is the untimed warm-up). */
interface Command {
  readonly label: string;
  readonly usesStore: boolean;
  args(run: number): string[];
}

function runCli(args: readonly string[], flags: readonly string[]): string {
  return execFileSync(process.execPath, [CLI, ...args, ...flags], { env: { ...process.env, DATABASE_URL: '' }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
}

/** The median wall time of `runs` fresh processes, after one untimed run (which warms the file cache). */
function coldMs(runs: number, file: string, args: (run: number) => readonly string[]): number {
  const times: number[] = [];
  for (let run = 0; run <= runs; run++) {
    const argv = [file, ...args(run)];
    const start = performance.now();
    execFileSync(process.execPath, argv, { env: { ...process.env, DATABASE_URL: '' }, stdio: 'ignore' });
    if (run > 0) times.push(performance.now() - start);
  }
  return median(times);
}

/** The commands, with the agents they need stored in the column's store first (not timed). */
function prepare(work: string, column: Column): Command[] {
  const agentOf = (args: string[]) => (JSON.parse(runCli([...args, '--json'], column.flags)) as { agentId: string }).agentId;
  const session = agentOf(['import', SESSION]);
  const small = join(work, 'small.json');
  writeFileSync(small, chatBody(2));
  agentOf(['import', small]);
  // The synced agent grows by one turn a run, as a chat client sending its whole body each turn.
  const synced = agentOf(['import', small]);
  const syncFile = (run: number) => {
    const file = join(work, `${column.name.replace(/\W/g, '')}-sync-${run}.json`);
    writeFileSync(file, chatBody(3 + run));
    return file;
  };
  return [
    { label: '`agents`', usesStore: true, args: () => ['agents'] },
    { label: '`history <agent>`', usesStore: true, args: () => ['history', session] },
    { label: '`window --agent <agent>`', usesStore: true, args: () => ['window', '--agent', session] },
    { label: '`marks <agent>`', usesStore: true, args: () => ['marks', session] },
    { label: '`export <agent>` (530 messages, JSONL)', usesStore: true, args: () => ['export', session] },
    { label: '`mark <agent> <label>`', usesStore: true, args: (run) => ['mark', session, `bench-${run}`] },
    { label: '`import` a 5-message file, new agent', usesStore: true, args: () => ['import', small] },
    { label: '`import --agent <agent> --sync`, 2 new messages', usesStore: true, args: (run) => ['import', syncFile(run), '--agent', synced, '--sync'] },
    { label: '`count` a 5-message file', usesStore: false, args: () => ['count', small] },
    { label: '`window` a 5-message file', usesStore: false, args: () => ['window', small] },
  ];
}

export async function runColdStartBenchmarks(quick: boolean): Promise<string[]> {
  const runs = quick ? 3 : 9;
  const work = mkdtempSync(join(tmpdir(), 'sliding-context-cold-'));
  const serverUrl = process.env.DATABASE_URL;
  const server = serverUrl ? await createServerDatabase(serverUrl, 'cold') : undefined;
  try {
    const columns: Column[] = [{ name: 'PGlite', flags: ['--data-dir', join(work, 'store')] }];
    if (server) columns.push({ name: 'PostgreSQL server', flags: ['--database-url', server.url] });
    const floor = coldMs(runs, '-e', () => ['0']);
    const version = coldMs(runs, CLI, () => ['--version']);
    const timed = columns.map((column) => {
      const commands = prepare(work, column);
      // A command that opens no store is timed once, in the first column.
      const timedHere = (command: Command) => command.usesStore || column === columns[0];
      return commands.map((command) => ({
        label: command.label,
        ms: timedHere(command) ? coldMs(runs, CLI, (run) => [...command.args(run), ...(command.usesStore ? column.flags : [])]) : undefined,
      }));
    });
    const cell = (ms: number | undefined) => (ms === undefined ? 'no store' : `${formatMs(ms)}${ms > GOAL_MS ? ' ✗' : ''}`);
    const rows = (timed[0] ?? []).map((entry, index) => [entry.label, cell(entry.ms), ...(server ? [cell(timed[1]?.[index]?.ms)] : [])]);
    const header = ['command', 'PGlite, median ms', ...(server ? ['PostgreSQL server, median ms'] : [])];
    const serverNote = server ? '' : '\n\nThe PostgreSQL server column is left out: DATABASE_URL is not set.';
    return [
      `### Cold start of each command, in a fresh process (goal: ${GOAL_MS} ms; ✗ over it)\n\n${markdownTable(header, [
        ['`node -e 0` (the floor: a process doing nothing)', formatMs(floor), ...(server ? [formatMs(floor)] : [])],
        ['`--version` (the CLI starting, no command)', formatMs(version), ...(server ? [formatMs(version)] : [])],
        ...rows,
      ])}\n\nEach figure is the median of ${runs} fresh processes after one untimed run, on a store that holds the 530-message example session and a few small agents; the reading commands show the session. \`history\` draws the outline the previous run saved beside a PGlite store, without starting PGlite (the first run after a write reads the store); \`count\` and \`window\` of a file open no store.${serverNote}`,
    ];
  } finally {
    rmSync(work, { recursive: true, force: true });
    await server?.drop();
  }
}
