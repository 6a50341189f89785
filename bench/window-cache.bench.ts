/**
 * What each window policy leaves the provider's prompt cache: seeded 200-turn coding sessions
 * (tool loops, parallel calls, now and then a large output) at budgets of 20k and 100k tokens,
 * with a request before every model call. For each policy: the share of input tokens that are a
 * prefix of the previous request (what a prefix cache can serve), the input cost relative to
 * sending everything uncached at Anthropic's prices (read 0.1×, write 1.25×) and at OpenAI's
 * (gpt-4o: cached 0.5×, no write premium), the mean fill of the budget, and the tokens the
 * model sees. The prefix is measured in whole messages after the system prompt and tools, and
 * a prefix under 1,024 tokens counts as uncached, as the providers do.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { get_encoding } from 'tiktoken';
import type { ModelMessage } from '../src/message/message.js';
import { loadTokenCounter } from '../src/tokens/load-token-counter.js';
import type { TokenCounter } from '../src/tokens/token-counter.js';
import { WindowState } from '../src/window/window-state.js';
import type { WindowPolicy } from '../src/window/window-policy.js';
import { markdownTable } from './_table.js';
import { aiSdkPruneKeeper } from './peers/ai-sdk-prune-messages.js';
import { langchainTrimKeeper } from './peers/langchain-trim-messages.js';
import { mastraTokenLimiterKeeper } from './peers/mastra-token-limiter.js';
import type { KeeperContext, WindowKeeper } from './peers/window-keeper.js';
import { agentTraffic, TRAFFIC_SEED, TRAFFIC_SYSTEM, TRAFFIC_TOOLS } from './workloads/agent-traffic.js';

const target = { provider: 'openai', model: 'gpt-4o' };
const MIN_CACHED_PREFIX = 1_024;
const ANTHROPIC = { read: 0.1, write: 1.25 };
const OPENAI = { read: 0.5, write: 1 };
/** Claude Code compacts at about 92% of the window; its summary here is a fixed text of this many characters. */
const COMPACT_AT = 0.92;
const SUMMARY_TEXT = `Summary of the work so far: ${'the agent fixed, tested and documented modules of the repository; '.repeat(40)}`;

/** Gives a session's messages one model call at a time and returns the window sent for it. */
interface CacheKeeper {
  readonly name: string;
  request(added: readonly ModelMessage[]): Promise<readonly ModelMessage[]>;
  close(): Promise<void>;
}

function policyKeeper(name: string, policy: WindowPolicy, context: KeeperContext): CacheKeeper {
  const { budgetTokens, system, tools, counter } = context;
  const state = new WindowState({ ...target, budgetTokens, system, tools, counter, policy });
  return {
    name,
    request(added) {
      state.append(added).prune();
      return Promise.resolve(state.windowMessages());
    },
    close: () => Promise.resolve(),
  };
}

function peerKeeper(keeper: WindowKeeper): CacheKeeper {
  return {
    name: keeper.name,
    async request(added) {
      await keeper.turn(added);
      return keeper.lastWindow();
    },
    close: () => keeper.close(),
  };
}

/**
 * Claude Code's way: everything is sent until the request reaches 92% of the window; then all
 * but the latest exchange is replaced by a summary (here a fixed text), and the window grows again.
 */
function compactionKeeper(context: KeeperContext, count: (message: ModelMessage) => number): CacheKeeper {
  const summary: ModelMessage = { role: 'user', content: SUMMARY_TEXT };
  let window: ModelMessage[] = [];
  const preamble = context.counter.countPreamble({ ...target, system: context.system, tools: context.tools }).tokens;
  return {
    name: 'compaction at 92% (Claude Code style)',
    request(added) {
      window.push(...added);
      const tokens = preamble + window.reduce((sum, message) => sum + count(message), 0);
      if (tokens > COMPACT_AT * context.budgetTokens) {
        const latest = window.findLastIndex((message) => message.role === 'user' && typeof message.content === 'string');
        window = [summary, { role: 'assistant', content: 'Understood.' }, ...window.slice(Math.max(0, latest))];
      }
      return Promise.resolve(window);
    },
    close: () => Promise.resolve(),
  };
}

/** The messages of a session in the chunks a model call sees: up to each assistant message. */
function sessionChunks(turns: number): ModelMessage[][] {
  const traffic = agentTraffic(TRAFFIC_SEED);
  const chunks: ModelMessage[][] = [];
  let pending: ModelMessage[] = [];
  for (let turn = 0; turn < turns; turn++) {
    for (const message of traffic.nextExchange()) {
      if (message.role === 'assistant') {
        chunks.push(pending);
        pending = [];
      }
      pending.push(message);
    }
  }
  return chunks;
}

interface Measured {
  requests: number;
  inputTokens: number;
  cachedTokens: number;
  fill: number;
  /** Fill summed over the requests made once the history had passed the budget. */
  fullFill: number;
  fullRequests: number;
  anthropicCost: number;
  openaiCost: number;
}

/** How a session is measured: its messages by model call, the preamble and budget, and how messages are counted and compared. */
interface Session {
  readonly chunks: readonly ModelMessage[][];
  readonly preamble: number;
  readonly budget: number;
  readonly count: (message: ModelMessage) => number;
  readonly key: (message: ModelMessage) => string;
}

async function measure(keeper: CacheKeeper, session: Session): Promise<Measured> {
  const { chunks, preamble, budget, count, key } = session;
  const totals: Measured = { requests: 0, inputTokens: 0, cachedTokens: 0, fill: 0, fullFill: 0, fullRequests: 0, anthropicCost: 0, openaiCost: 0 };
  let previous: readonly string[] = [];
  let history = preamble;
  try {
    for (const chunk of chunks) {
      for (const message of chunk) history += count(message);
      const window = await keeper.request(chunk);
      const keys = window.map(key);
      const tokens = window.map(count);
      const total = preamble + tokens.reduce((sum, value) => sum + value, 0);
      let shared = 0;
      let prefix = previous.length > 0 ? preamble : 0;
      while (previous.length > 0 && shared < keys.length && shared < previous.length && keys[shared] === previous[shared]) {
        prefix += tokens[shared++] ?? 0;
      }
      const cached = prefix >= MIN_CACHED_PREFIX ? prefix : 0;
      totals.requests++;
      totals.inputTokens += total;
      totals.cachedTokens += cached;
      totals.fill += total / budget;
      if (history > budget) {
        totals.fullFill += total / budget;
        totals.fullRequests++;
      }
      totals.anthropicCost += ANTHROPIC.read * cached + ANTHROPIC.write * (total - cached);
      totals.openaiCost += OPENAI.read * cached + OPENAI.write * (total - cached);
      previous = keys;
    }
  } finally {
    await keeper.close();
  }
  return totals;
}

export async function runWindowCacheBenchmarks(quick: boolean): Promise<string[]> {
  const counter: TokenCounter = await loadTokenCounter();
  const tiktoken = get_encoding('o200k_base');
  const directory = mkdtempSync(join(tmpdir(), 'sliding-context-cache-'));
  const turns = quick ? 100 : 200;
  const chunks = sessionChunks(turns);
  const counts = new WeakMap<ModelMessage, number>();
  const count = (message: ModelMessage) => {
    let tokens = counts.get(message);
    if (tokens === undefined) counts.set(message, (tokens = counter.countMessage({ ...target, message }).tokens));
    return tokens;
  };
  // Peers rebuild some messages: two messages are the same when their JSON is.
  const keys = new WeakMap<ModelMessage, string>();
  const key = (message: ModelMessage) => {
    let text = keys.get(message);
    if (text === undefined) keys.set(message, (text = JSON.stringify(message)));
    return text;
  };
  const preamble = counter.countPreamble({ ...target, system: TRAFFIC_SYSTEM, tools: TRAFFIC_TOOLS }).tokens;
  const sections: string[] = [];
  try {
    for (const budget of [20_000, 100_000]) {
      const dataDir = join(directory, String(budget));
      const context: KeeperContext = { ...target, budgetTokens: budget, system: TRAFFIC_SYSTEM, tools: TRAFFIC_TOOLS, counter, tiktoken, dataDir };
      const keepers: (() => CacheKeeper)[] = [
        ...[0.5, 0.6, 0.7, 0.8, 0.85, 0.9].map((lowWaterMark) => () => policyKeeper(`cache-aware, low water ${lowWaterMark}`, { name: 'cache-aware', lowWaterMark }, context)),
        () => policyKeeper('budget', { name: 'budget' }, context),
        () => policyKeeper('fraction (Roo)', { name: 'fraction' }, context),
        () => policyKeeper('sequence (Forge)', { name: 'sequence', tokenThreshold: budget }, context),
        () => peerKeeper(langchainTrimKeeper(context)),
        () => peerKeeper(aiSdkPruneKeeper()),
        () => peerKeeper(mastraTokenLimiterKeeper(context)),
        () => compactionKeeper(context, count),
      ];
      const rows: string[][] = [];
      for (const make of keepers) {
        const keeper = make();
        const measured = await measure(keeper, { chunks, preamble, budget, count, key });
        const share = (value: number) => `${(100 * value).toFixed(0)}%`;
        rows.push([
          keeper.name,
          share(measured.cachedTokens / measured.inputTokens),
          `${(measured.anthropicCost / measured.inputTokens).toFixed(2)}×`,
          `${(measured.openaiCost / measured.inputTokens).toFixed(2)}×`,
          share(measured.fill / measured.requests),
          share(measured.fullFill / Math.max(1, measured.fullRequests)),
          Math.round(measured.inputTokens / measured.requests).toLocaleString('en-US'),
          `${(measured.anthropicCost / 1e6).toFixed(2)}M`,
        ]);
      }
      const header = ['policy', 'cacheable input', 'Anthropic cost vs uncached', 'OpenAI cost vs uncached', 'mean fill', 'mean fill once full', 'tokens seen per request', 'Anthropic cost (token-equivalents)'];
      sections.push(`### Prompt cache: ${turns} turns, ${chunks.length} requests, budget ${budget.toLocaleString('en-US')} tokens\n\n${markdownTable(header, rows)}`);
    }
  } finally {
    tiktoken.free();
    rmSync(directory, { recursive: true, force: true });
  }
  return sections;
}
