/**
 * Per-turn window upkeep against the peers: on histories of 1k to 1M messages of seeded agent
 * traffic, under a 100,000-token budget, each keeper takes the same turns and produces the
 * window to send. Timed per turn; every window is judged for orphaned tool calls or results, a
 * start that is not the user's, and a request over the budget (counted exactly for gpt-4o).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { get_encoding } from 'tiktoken';
import { loadTokenCounter } from '../src/tokens/load-token-counter.js';
import type { ModelMessage } from '../src/message/message.js';
import type { TokenCounter } from '../src/tokens/token-counter.js';
import { formatMs, formatRatio, markdownTable, median } from './_table.js';
import { aiSdkPruneKeeper } from './peers/ai-sdk-prune-messages.js';
import { ikigaiBaselineKeeper } from './peers/ikigai-baseline.js';
import { langchainTrimKeeper } from './peers/langchain-trim-messages.js';
import { mastraTokenLimiterKeeper } from './peers/mastra-token-limiter.js';
import { rooBaselineKeeper } from './peers/roo-baseline.js';
import { conversationKeeper, windowStateKeeper } from './peers/sliding-context.js';
import type { KeeperContext, WindowKeeper } from './peers/window-keeper.js';
import { agentTraffic, TRAFFIC_SEED, TRAFFIC_SYSTEM, TRAFFIC_TOOLS } from './workloads/agent-traffic.js';
import { judgeWindow } from '../src/testing/judge-window.js';
import { withKnownCounts } from './workloads/known-counts.js';

const BUDGET = 100_000;
const target = { provider: 'openai', model: 'gpt-4o' };
/** The request every keeper fits: the model, the budget, the system prompt and the tools. */
const request = { ...target, budgetTokens: BUDGET, system: TRAFFIC_SYSTEM, tools: TRAFFIC_TOOLS };

const keepers: readonly ((context: KeeperContext) => WindowKeeper)[] = [
  windowStateKeeper,
  conversationKeeper,
  langchainTrimKeeper,
  aiSdkPruneKeeper,
  mastraTokenLimiterKeeper,
  ikigaiBaselineKeeper,
  rooBaselineKeeper,
];

interface Tally {
  turns: number;
  tokens: number;
  withOrphans: number;
  nonUserStart: number;
  overBudget: number;
  maxTokens: number;
}

/**
 * Sets a keeper up on the history, gives it the turns one by one, and closes it. `afterTurn` gets
 * each turn's time; returning false stops the turns.
 */
async function drive(
  keeper: WindowKeeper,
  history: readonly ModelMessage[],
  turns: readonly ModelMessage[][],
  afterTurn: (ms: number, index: number) => boolean = () => true,
): Promise<void> {
  try {
    await keeper.setUp(history);
    for (const [index, turn] of turns.entries()) {
      keeper.beforeTurn?.(turn);
      const start = performance.now();
      await keeper.turn(turn);
      if (!afterTurn(performance.now() - start, index)) break;
    }
  } finally {
    await keeper.close();
  }
}

/** Every keeper once on a small history, untimed, so that no keeper's first size pays for compiling its code. */
async function warmUpRound(input: { judgeCounter: TokenCounter; tiktoken: KeeperContext['tiktoken']; directory: string }): Promise<void> {
  const traffic = agentTraffic(TRAFFIC_SEED + 1);
  const history = traffic.history(1_000);
  const turns = Array.from({ length: 10 }, () => traffic.nextExchange());
  for (const [index, makeKeeper] of keepers.entries()) {
    const dataDir = join(input.directory, `warm-up-${index}`);
    await drive(makeKeeper({ ...request, counter: input.judgeCounter, tiktoken: input.tiktoken, dataDir }), history, turns);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function runWindowUpkeepBenchmarks(quick: boolean): Promise<string[]> {
  const sizes = quick ? [1_000, 10_000, 100_000] : [1_000, 10_000, 100_000, 1_000_000];
  const warmUp = 3;
  const turns = quick ? 5 : 20;
  // A keeper that takes over a tenth of this per turn at one size is not run at ten times the size.
  const perTurnLimitMs = quick ? 2_000 : 10_000;
  const judgeCounter = await loadTokenCounter();
  const tiktoken = get_encoding('o200k_base');
  const directory = mkdtempSync(join(tmpdir(), 'sliding-context-upkeep-'));
  const medians = new Map<string, (number | undefined)[]>();
  const tallies = new Map<string, Tally>();
  const names: string[] = [];
  const turnsShort = new Map<string, number>();
  const sizeRows: (string | number)[][] = [];
  try {
    await warmUpRound({ judgeCounter, tiktoken, directory });
    for (const [sizeIndex, size] of sizes.entries()) {
      const traffic = agentTraffic(TRAFFIC_SEED);
      const history = traffic.history(size);
      const nextTurns = Array.from({ length: warmUp + turns }, () => traffic.nextExchange());
      const known = new Map(history.map((message) => [message, judgeCounter.countMessage({ ...target, message })]));
      sizeRows.push([size.toLocaleString('en-US'), history.length.toLocaleString('en-US'), history.filter((message) => message.role === 'user').length.toLocaleString('en-US')]);
      for (const [keeperIndex, makeKeeper] of keepers.entries()) {
        // The history counted once for all; a fresh counter for each keeper's turns, so that nothing it caches helps the next one.
        const counter = withKnownCounts(await loadTokenCounter(), known);
        const dataDir = join(directory, `${size}-${keeperIndex}`);
        const keeper = makeKeeper({ ...request, counter, tiktoken, dataDir });
        if (!names.includes(keeper.name)) names.push(keeper.name);
        const row = medians.get(keeper.name) ?? [];
        medians.set(keeper.name, row);
        const previous = sizeIndex > 0 ? row[sizeIndex - 1] : 0;
        if (previous === undefined || previous * 10 > perTurnLimitMs) {
          row.push(undefined);
          continue;
        }
        process.stderr.write(`upkeep: ${keeper.name}, ${size.toLocaleString('en-US')} messages\n`);
        const tally = tallies.get(keeper.name) ?? { turns: 0, tokens: 0, withOrphans: 0, nonUserStart: 0, overBudget: 0, maxTokens: 0 };
        tallies.set(keeper.name, tally);
        const times: number[] = [];
        await drive(keeper, history, nextTurns, (elapsed, turnIndex) => {
          // One slow turn is enough to know: the rest would take as long.
          const tooSlow = elapsed > perTurnLimitMs;
          if (turnIndex >= warmUp || tooSlow) times.push(elapsed);
          const verdict = judgeWindow(keeper.lastWindow(), { ...request, counter: judgeCounter });
          tally.turns++;
          tally.tokens += verdict.requestTokens;
          if (verdict.orphans > 0) tally.withOrphans++;
          if (verdict.startsWithNonUser) tally.nonUserStart++;
          if (verdict.overBudget) tally.overBudget++;
          tally.maxTokens = Math.max(tally.maxTokens, verdict.requestTokens);
          return !tooSlow;
        });
        rmSync(dataDir, { recursive: true, force: true });
        row.push(median(times));
        if (times.length < turns) turnsShort.set(`${keeper.name} ${sizeIndex}`, times.length);
      }
    }
  } finally {
    tiktoken.free();
    rmSync(directory, { recursive: true, force: true });
  }
  const ours = medians.get(names[0] ?? '') ?? [];
  const upkeepRows = names.map((name) => {
    const row = medians.get(name) ?? [];
    return [name, ...sizes.map((_, index) => {
      const measured = row[index];
      if (measured === undefined) return '(not run)';
      const short = turnsShort.get(`${name} ${index}`);
      return short === undefined ? formatMs(measured) : `${formatMs(measured)} (${short} turn${short === 1 ? '' : 's'})`;
    })];
  });
  const ratioRows = names.slice(1).map((name) => {
    const row = medians.get(name) ?? [];
    return [name, ...sizes.map((_, index) => (row[index] === undefined || ours[index] === undefined ? '—' : formatRatio(row[index] / ours[index])))];
  });
  const flat = ours[0] === undefined || ours.at(-1) === undefined ? '—' : formatRatio((ours.at(-1) ?? 0) / ours[0]);
  const sizeHeader = sizes.map((size) => `${size.toLocaleString('en-US')} msgs, ms`);
  const correctnessRows = names.map((name) => {
    const tally = tallies.get(name);
    if (!tally) return [name, 0, '—', '—', '—', '—', '—'];
    return [name, tally.turns, tally.withOrphans, tally.nonUserStart, tally.overBudget, Math.round(tally.tokens / tally.turns).toLocaleString('en-US'), tally.maxTokens.toLocaleString('en-US')];
  });
  return [
    `### Window upkeep: the workload (seed ${TRAFFIC_SEED})\n\n${markdownTable(['history', 'messages', 'exchanges'], sizeRows)}\n\nEach exchange is a user request, a tool loop of 0 to 6 steps (three steps in ten call 2 to 4 tools at once), and the answer; one tool output in twenty is 6 to 30 KB. ${warmUp} warm-up turns, then ${turns} measured, the same for every keeper.`,
    `### Window upkeep: median ms per turn, budget 100,000 tokens (goal: ours flat, 1M within 1.5× of 1k; ≥ 50× faster than trimMessages at 10k)\n\n${markdownTable(['keeper', ...sizeHeader], upkeepRows)}\n\nOurs at ${sizes.at(-1)?.toLocaleString('en-US')} messages against 1,000: ${flat}. "(not run)": at a tenth of that size the keeper took over ${perTurnLimitMs / 10_000} s a turn, so a turn here would take over ${perTurnLimitMs / 1000} s.`,
    `### Window upkeep: each peer's time per turn against ours (WindowState)\n\n${markdownTable(['keeper', ...sizes.map((size) => size.toLocaleString('en-US'))], ratioRows)}`,
    `### Window upkeep: every window produced, judged (ours must be zero in the three middle columns)\n\n${markdownTable(['keeper', 'windows judged', 'with orphaned tool calls or results', 'starting with a non-user message', 'over the budget', 'mean request, tokens', 'largest request, tokens'], correctnessRows)}`,
  ];
}
