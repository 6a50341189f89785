/**
 * Peak resident memory with a long history, each figure from a process of its own:
 * - the Conversation: the history in a PGlite store, only the window in memory, 20 turns taken;
 * - the whole history held in memory, as a stateless trimmer needs it (and `WindowState` over it).
 *
 * `tsx bench/memory.bench.ts <role> <dataDir> <messages>` runs one role; the bench runs them all.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newAgentMeta } from '../src/conversation/agent-settings.js';
import { openConversation } from '../src/conversation/conversation.js';
import { HistoryStore } from '../src/store/history-store.js';
import { loadTokenCounter } from '../src/tokens/load-token-counter.js';
import type { ModelMessage } from '../src/message/message.js';
import { WindowState } from '../src/window/window-state.js';
import { markdownTable } from './_table.js';
import { agentTraffic, TRAFFIC_SEED, TRAFFIC_SYSTEM, TRAFFIC_TOOLS } from './workloads/agent-traffic.js';
import { appendCounted } from './workloads/append-counted.js';

const target = { provider: 'openai', model: 'gpt-4o' };
const settings = { budgetTokens: 100_000, system: TRAFFIC_SYSTEM, tools: TRAFFIC_TOOLS };
const TURNS = 20;

interface RoleResult {
  readonly maxRssMiB: number;
  readonly heapUsedMiB: number;
  readonly windowMessages: number;
  readonly agentId?: string;
}

const peak = () => process.resourceUsage().maxRSS / 1024;

/** Stores `size` messages of traffic in parts, with their counts, so the history never sits in memory whole. */
async function buildStore(dataDir: string, size: number): Promise<RoleResult> {
  const counter = await loadTokenCounter();
  const store = await HistoryStore.open({ dataDir });
  try {
    const agentId = await store.createAgent(newAgentMeta(target, settings, counter.countPreamble({ ...target, ...settings })));
    const traffic = agentTraffic(TRAFFIC_SEED);
    for (let stored = 0; stored < size;) {
      const part = traffic.history(10_000);
      await appendCounted(store, agentId, part, counter, target);
      stored += part.length;
    }
    return { maxRssMiB: peak(), heapUsedMiB: process.memoryUsage().heapUsed / 2 ** 20, windowMessages: 0, agentId };
  } finally {
    await store.close();
  }
}

/** Opens the conversation on the stored history and takes turns: the window is all it holds. */
async function measureConversation(dataDir: string, agentId: string): Promise<RoleResult> {
  const counter = await loadTokenCounter();
  const store = await HistoryStore.open({ dataDir });
  try {
    const conversation = await openConversation({ store, agentId, ...target, counter });
    const traffic = agentTraffic(TRAFFIC_SEED + 1);
    let windowMessages = 0;
    for (let turn = 0; turn < TURNS; turn++) {
      await conversation.append(traffic.nextExchange());
      windowMessages = (await conversation.request()).report.messages.length;
      await conversation.endTurn();
    }
    return { maxRssMiB: peak(), heapUsedMiB: process.memoryUsage().heapUsed / 2 ** 20, windowMessages };
  } finally {
    await store.close();
  }
}

/** The whole history in memory, with a WindowState over it, as a host without a store keeps it. */
async function measureInMemory(size: number): Promise<RoleResult> {
  const counter = await loadTokenCounter();
  const traffic = agentTraffic(TRAFFIC_SEED);
  const state = new WindowState({ ...target, ...settings, counter });
  // Appended exchange by exchange, as a host keeps it while the agent works.
  const history: ModelMessage[] = [];
  while (history.length < size) {
    const exchange = traffic.nextExchange();
    history.push(...exchange);
    state.append(exchange);
  }
  state.prune();
  return { maxRssMiB: peak(), heapUsedMiB: process.memoryUsage().heapUsed / 2 ** 20, windowMessages: state.windowMessages().length };
}

function runRole(role: string, dataDir: string, size: number, agentId = ''): RoleResult {
  const script = fileURLToPath(import.meta.url);
  const output = execFileSync(process.execPath, ['--max-old-space-size=16384', '--import', 'tsx', script, role, dataDir, String(size), agentId], { encoding: 'utf8', maxBuffer: 2 ** 20 });
  return JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as RoleResult;
}

export function runMemoryBenchmarks(quick: boolean): string[] {
  const size = quick ? 100_000 : 1_000_000;
  const directory = mkdtempSync(join(tmpdir(), 'sliding-context-memory-'));
  const dataDir = join(directory, 'data');
  try {
    const built = runRole('build', dataDir, size);
    const conversation = runRole('conversation', dataDir, size, built.agentId);
    const inMemory = runRole('in-memory', dataDir, size);
    const mib = (value: number) => value.toFixed(0);
    const messages = size.toLocaleString('en-US');
    return [
      `### Memory: peak resident set with ${messages} messages of history (each row a fresh process)\n\n${markdownTable(
        ['what is held', 'peak RSS, MiB', 'heap used at the end, MiB', 'window messages'],
        [
          [`sliding-context Conversation: history in PGlite, window in memory, ${TURNS} turns`, mib(conversation.maxRssMiB), mib(conversation.heapUsedMiB), conversation.windowMessages],
          [`the whole history in memory, with a WindowState over it (what a stateless trimmer needs)`, mib(inMemory.maxRssMiB), mib(inMemory.heapUsedMiB), inMemory.windowMessages],
          [`(writing the store: counting and appending in parts of 10,000)`, mib(built.maxRssMiB), mib(built.heapUsedMiB), '—'],
        ],
      )}`,
    ];
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

// Run as a child: one role, its result as JSON on the last line.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [role, dataDir = '', size = '0', agentId = ''] = process.argv.slice(2);
  const result =
    role === 'build'
      ? await buildStore(dataDir, Number(size))
      : role === 'conversation'
        ? await measureConversation(dataDir, agentId)
        : await measureInMemory(Number(size));
  console.log(JSON.stringify(result));
}
