/**
 * `sliding-context serve` under load: a loopback upstream that answers at once (so that what is
 * measured is the proxy's own time), 1, 10 and 50 agents side by side whose histories are about
 * 100k tokens, on PGlite and on a PostgreSQL server (`DATABASE_URL`): the proxy's overhead (its
 * `x-sliding-context-overhead-ms` header: windowing and the store's writes, the upstream
 * excluded) at p50/p95/p99, requests per second and the process's memory. Then whether the
 * overhead grows with the store (1k against 1M stored messages), and what placing a call in its
 * open conversation costs as its history grows, fingerprinting every message against comparing.
 */
import { memoryUsage } from 'node:process';
import type { ModelMessage } from '../src/message/message.js';
import { messageFingerprint, sharedPrefixLength } from '../src/conversation/find-conversation-by-prefix.js';
import { copyMessageContent, sharedMessagePrefixLength } from '../src/conversation/same-message-content.js';
import { type LoadSample, runProxyLoad, startInstantUpstream, syntheticHistory } from '../src/serve/_test-proxy-load.js';
import { startProxy } from '../src/serve/start-proxy.js';
import { HistoryStore } from '../src/store/history-store.js';
import { createServerDatabase } from '../src/testing/server-database.js';
import { formatMs, formatRatio, markdownTable, timeMedian } from './_table.js';

const HISTORY_TOKENS = 100_000;
const BUDGET = 32_000;
const MiB = 2 ** 20;

function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] ?? Number.NaN;
}

interface Engine {
  readonly name: string;
  open(): Promise<{ store: HistoryStore; drop(): Promise<void> }>;
}

function engines(): { list: Engine[]; note: string } {
  const list: Engine[] = [{
    name: 'PGlite',
    async open() {
      const store = await HistoryStore.open({ memory: true });
      return { store, drop: () => Promise.resolve() };
    },
  }];
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl) {
    list.push({
      name: 'PostgreSQL',
      async open() {
        const database = await createServerDatabase(serverUrl, 'bench_proxy');
        const store = await HistoryStore.open({ databaseUrl: database.url });
        return { store, drop: () => database.drop() };
      },
    });
  }
  return { list, note: serverUrl ? '' : ' DATABASE_URL is not set: the PostgreSQL server half was not run.' };
}

/** The largest resident set seen while `work` runs, sampled every 50 ms. */
async function peakRss<T>(work: () => Promise<T>): Promise<{ result: T; peakMiB: number }> {
  let peak = memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, memoryUsage.rss());
  }, 50);
  try {
    const result = await work();
    peak = Math.max(peak, memoryUsage.rss());
    return { result, peakMiB: peak / MiB };
  } finally {
    clearInterval(timer);
  }
}

async function withProxy<T>(store: HistoryStore, work: (url: string) => Promise<T>): Promise<T> {
  const upstream = await startInstantUpstream();
  const proxy = await startProxy({ store, port: 0, upstreamOpenAi: upstream.url, budgetTokens: BUDGET });
  try {
    return await work(proxy.url);
  } finally {
    await proxy.close();
    await upstream.close();
  }
}

const agentsOf = (samples: readonly LoadSample[]) => new Set(samples.map((sample) => sample.agentId)).size;

async function loadTable(quick: boolean): Promise<string> {
  const { list, note } = engines();
  const plans: [agents: number, requests: number][] = quick ? [[1, 10], [10, 3], [50, 1]] : [[1, 40], [10, 10], [50, 4]];
  const rows: string[][] = [];
  for (const engine of list) {
    for (const [agents, requests] of plans) {
      const opened = await engine.open();
      const { store } = opened;
      try {
        const histories = Array.from({ length: agents }, (_, index) => syntheticHistory(index + 1, HISTORY_TOKENS));
        const measured = await peakRss(() => withProxy(store, (url) => runProxyLoad(url, histories, requests)));
        const { samples, wallMs } = measured.result;
        const { peakMiB } = measured;
        const overheads = samples.map((sample) => sample.overheadMs);
        rows.push([
          engine.name, String(agents), String(samples.length),
          formatMs(percentile(overheads, 0.5)), formatMs(percentile(overheads, 0.95)), formatMs(percentile(overheads, 0.99)),
          formatMs(percentile(samples.map((sample) => sample.latencyMs), 0.5)),
          (samples.length / (wallMs / 1000)).toFixed(0), peakMiB.toFixed(0), String(agentsOf(samples)),
        ]);
      } finally {
        await store.close().catch(() => undefined);
        await opened.drop();
      }
    }
  }
  return `### Proxy: overhead under load, histories of about 100k tokens, budget ${BUDGET.toLocaleString('en-US')} (goal: p50 ≤ 5 ms, p95 ≤ 15 ms)${note}\n\n${markdownTable(
    ['engine', 'agents side by side', 'timed requests', 'overhead p50 ms', 'p95 ms', 'p99 ms', 'client latency p50 ms', 'requests/s', 'peak RSS MiB', 'agents stored'],
    rows,
  )}\n\nEach agent's history is stored by its first request (not timed); then every agent sends its next turns (the whole history again, the last answer and a new user message), all agents at once. Overhead is the proxy's \`x-sliding-context-overhead-ms\`: parsing, placing, windowing, the store's writes of the request and of the answer before the next request of that agent is placed, the upstream's time excluded. The clients, the proxy and the upstream share one process; "agents stored" shows every turn continued its own agent.`;
}

/** Stores `count` short messages spread over agents of 10,000 messages each: the rest of a busy store. */
async function fillStore(store: HistoryStore, count: number): Promise<void> {
  const perAgent = 10_000;
  for (let agentStart = 0; agentStart < count; agentStart += perAgent) {
    const agentId = await store.createAgent({});
    const size = Math.min(perAgent, count - agentStart);
    for (let start = 0; start < size; start += 2_000) {
      const part: ModelMessage[] = [];
      for (let index = start; index < Math.min(size, start + 2_000); index += 2) {
        part.push({ role: 'user', content: `filler ${String(agentStart)} question ${String(index)}` });
        part.push({ role: 'assistant', content: `answer ${String(index)}` });
      }
      await store.append(agentId, part);
    }
  }
}

async function growthTable(quick: boolean): Promise<string> {
  const sizes = quick ? [1_000, 100_000] : [1_000, 1_000_000];
  const requests = quick ? 15 : 40;
  const rows: string[][] = [];
  let base: number | undefined;
  for (const size of sizes) {
    const store = await HistoryStore.open({ memory: true });
    try {
      const fillStarted = performance.now();
      await fillStore(store, size);
      const fillMs = performance.now() - fillStarted;
      const firstStarted = performance.now();
      const history = syntheticHistory(7, HISTORY_TOKENS);
      const { samples } = await withProxy(store, async (url) => {
        const run = await runProxyLoad(url, [history], requests);
        return run;
      });
      const placeFirstMs = performance.now() - firstStarted - samples.reduce((sum, sample) => sum + sample.latencyMs, 0);
      const p50 = percentile(samples.map((sample) => sample.overheadMs), 0.5);
      base ??= p50;
      rows.push([
        size.toLocaleString('en-US'), `${(fillMs / 1000).toFixed(1)} s`, formatMs(placeFirstMs),
        formatMs(p50), formatMs(percentile(samples.map((sample) => sample.overheadMs), 0.95)), formatRatio(p50 / base),
      ]);
    } finally {
      await store.close();
    }
  }
  return `### Proxy: overhead as the store grows, PGlite, one agent of about 100k tokens (goal: ${sizes.at(-1)?.toLocaleString('en-US') ?? ''} within 1.5× of 1,000)\n\n${markdownTable(
    ['messages stored (other agents)', 'filled in', 'first request, ms (stores the history)', 'overhead p50 ms', 'p95 ms', 'p50 vs 1,000'],
    rows,
  )}\n\nThe store holds the agents of other conversations (10,000 short messages each, stored in batches of 2,000); the measured agent's first request is placed by the store's prefix rule and stores its history, the ${String(requests)} timed turns after it continue the open conversation.`;
}

function placementTable(): string {
  const rows: string[][] = [];
  for (const tokens of [10_000, 100_000, 550_000]) {
    const sent = syntheticHistory(3, tokens).map((message): ModelMessage => (message.role === 'system'
      ? { role: 'system', content: message.content }
      : { role: message.role, content: [{ type: 'text', text: message.content }] }));
    // A new request: the same content, new objects (as a client sends it again).
    const again = (): ModelMessage[] => JSON.parse(JSON.stringify(sent)) as ModelMessage[];
    const knownFingerprints = sent.map(messageFingerprint);
    const knownCopies = sent.map(copyMessageContent);
    const requests = Array.from({ length: 21 }, again);
    let round = 0;
    const fingerprintMs = timeMedian(21, () => sharedPrefixLength(knownFingerprints, (requests[round++ % requests.length] ?? sent).map(messageFingerprint)));
    round = 0;
    const compareMs = timeMedian(21, () => sharedMessagePrefixLength(knownCopies, requests[round++ % requests.length] ?? sent));
    const bytes = JSON.stringify(sent).length;
    rows.push([tokens.toLocaleString('en-US'), String(sent.length), `${(bytes / MiB).toFixed(2)} MiB`, formatMs(fingerprintMs), formatMs(compareMs), formatRatio(fingerprintMs / compareMs)]);
  }
  return `### Placing a call in its open conversation: median ms per call\n\n${markdownTable(
    ['history tokens', 'messages', 'JSON', 'fingerprint every message (before)', 'compare with the known messages (now)', 'faster'],
    rows,
  )}\n\nThe call's messages are new objects with the same content, as a client sends them again; "before" builds each message's sorted-key fingerprint and compares the lists, "now" walks each message against the conversation's own copy and stops at the first difference.`;
}

export async function runProxyBenchmarks(quick: boolean): Promise<string[]> {
  const placement = placementTable();
  const load = await loadTable(quick);
  const growth = await growthTable(quick);
  return [placement, load, growth];
}
