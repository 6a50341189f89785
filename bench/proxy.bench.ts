/**
 * `sliding-context serve` under load: the built CLI's `serve` in a process of its own (PGlite in a
 * directory, or a PostgreSQL server with `DATABASE_URL`), in front of a loopback upstream that
 * answers at once, the clients and the upstream in this process, so that what is measured is the
 * proxy's own time, side by side with a proxy that only forwards (the floor of that time on the
 * machine). 1, 10 and 50 agents side by side whose histories are about 100k tokens, paced
 * as agents are (a pause between turns), back to back (the proxy saturated), and paced with turns
 * that call a tool and send its 20 KB output: the proxy's
 * overhead (its `x-sliding-context-overhead-ms` header: windowing and the store's writes, the
 * upstream excluded) at p50/p95/p99, requests per second and the serve process's peak memory.
 * Then whether the overhead grows with the store (1k against 1M stored messages), and what placing
 * a call in its open conversation costs as its history grows, fingerprinting every message
 * against comparing. Run `npm run build` first.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModelMessage } from '../src/message/message.js';
import { messageFingerprint, sharedPrefixLength } from '../src/conversation/find-conversation-by-prefix.js';
import { copyMessageContent, sharedMessagePrefixLength } from '../src/conversation/same-message-content.js';
import { type ChatMessage, type LoadSample, runTurns, seedConversations, startInstantUpstream, syntheticHistory } from '../src/serve/_test-proxy-load.js';
import { HistoryStore } from '../src/store/history-store.js';
import { fillBusyStore } from './workloads/fill-busy-store.js';
import { createServerDatabase } from '../src/testing/server-database.js';
import { type ServeProcess, startForwardingProxy, startServeProcess } from './_serve-process.js';
import { formatMs, formatRatio, markdownTable, percentile, timeMedian } from './_table.js';

const HISTORY_TOKENS = 100_000;
const BUDGET = 32_000;
const MiB = 2 ** 20;

/** Where the proxy keeps its store: the flags `serve` gets, and how the store is removed afterwards. */
interface Engine {
  readonly name: string;
  open(): Promise<{ flags: string[]; drop(): Promise<void> }>;
}

function engines(): { list: Engine[]; note: string } {
  const list: Engine[] = [{
    name: 'PGlite',
    open() {
      const directory = mkdtempSync(join(tmpdir(), 'sc-bench-proxy-'));
      const drop = () => {
        rmSync(directory, { recursive: true, force: true });
        return Promise.resolve();
      };
      return Promise.resolve({ flags: ['--data-dir', join(directory, 'data')], drop });
    },
  }];
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl) {
    list.push({
      name: 'PostgreSQL',
      async open() {
        const database = await createServerDatabase(serverUrl, 'bench_proxy');
        return { flags: ['--database-url', database.url], drop: () => database.drop() };
      },
    });
  }
  return { list, note: serverUrl ? '' : ' DATABASE_URL is not set: the PostgreSQL server half was not run.' };
}

/**
 * A proxy in its own process (`start` given the upstream's URL), in front of an upstream that
 * answers at once (in this process); what it could not serve is printed, when the run fails too.
 */
async function withProxy<T>(start: (upstreamUrl: string) => Promise<ServeProcess>, work: (proxy: ServeProcess) => Promise<T>): Promise<T> {
  const upstream = await startInstantUpstream();
  try {
    const proxy = await start(upstream.url);
    try {
      return await work(proxy);
    } finally {
      await proxy.stop();
      if (proxy.problems() !== '') console.error(`the proxy reported problems:\n${proxy.problems()}`);
    }
  } finally {
    await upstream.close();
  }
}

/** `serve` on `flags`' store (see {@link withProxy}). */
const withServe = <T>(flags: readonly string[], work: (serve: ServeProcess) => Promise<T>): Promise<T> =>
  withProxy((upstreamUrl) => startServeProcess([...flags, '--upstream-openai', upstreamUrl, '--budget', String(BUDGET)]), work);

const agentsOf = (samples: readonly LoadSample[]) => new Set(samples.map((sample) => sample.agentId)).size;

/** A load run's row: overhead percentiles, client latency, throughput, and the proxy's CPU time per request. */
function loadRow(run: LoadRun): string[] {
  const { samples, wallMs, cpuMs } = run;
  const overheads = samples.map((sample) => sample.overheadMs);
  return [
    String(samples.length), formatMs(percentile(overheads, 0.5)), formatMs(percentile(overheads, 0.95)), formatMs(percentile(overheads, 0.99)),
    formatMs(percentile(samples.map((sample) => sample.latencyMs), 0.5)), (samples.length / (wallMs / 1000)).toFixed(0), formatMs(cpuMs / samples.length),
  ];
}

/** `work`, and the CPU time the serve process spent meanwhile. */
async function withCpu<T extends object>(serve: ServeProcess, work: () => Promise<T>): Promise<T & { cpuMs: number }> {
  const before = serve.cpuMs();
  const result = await work();
  return { ...result, cpuMs: serve.cpuMs() - before };
}

/** Each agent's mean pause between turns in the paced runs: a model's answer and the agent's tools take at least this long. */
const PACE_MS = 1_000;

/** The size of a tool's output in the runs whose turns call a tool: a test run's log, a file read. */
const TOOL_RESULT_BYTES = 20_000;

/** A load run's timed requests and the proxy's CPU time meanwhile. */
type LoadRun = { samples: LoadSample[]; wallMs: number; cpuMs: number };

/** The three runs of an agent count, one after the other: paced, back to back, paced with a tool's output every other request. */
async function runPatterns(
  proxy: ServeProcess,
  histories: readonly ChatMessage[][],
  pacedTurns: number,
  backToBackTurns: number,
): Promise<[string, LoadRun][]> {
  const conversations = await seedConversations(proxy.url, histories);
  const paced = await withCpu(proxy, () => runTurns(proxy.url, conversations, pacedTurns, { pauseMs: PACE_MS }));
  const backToBack = await withCpu(proxy, () => runTurns(proxy.url, conversations, backToBackTurns));
  // Each turn two requests: as many timed as in the paced run.
  const toolTurns = Math.max(1, Math.round(pacedTurns / 2));
  const withTools = await withCpu(proxy, () => runTurns(proxy.url, conversations, toolTurns, { pauseMs: PACE_MS, toolResultBytes: TOOL_RESULT_BYTES }));
  return [
    [PACED, paced],
    [BACK_TO_BACK, backToBack],
    [WITH_TOOLS, withTools],
  ];
}

const PACED = `paced, ~${String(PACE_MS / 1000)} s`;
const BACK_TO_BACK = 'back to back';
const WITH_TOOLS = `paced, ~${String(PACE_MS / 1000)} s, a tool result of ${String(TOOL_RESULT_BYTES / 1000)} KB every other request`;

const FORWARDER = 'forwarding only';

async function loadTable(quick: boolean): Promise<string> {
  const { list, note } = engines();
  // [agents, paced turns per agent, back-to-back turns per agent]
  const plans: [number, number, number][] = quick ? [[1, 8, 10], [10, 3, 3], [50, 2, 1]] : [[1, 40, 40], [10, 12, 10], [50, 6, 4]];
  const rows: string[][] = [];
  /** Overhead p50 and p95 per engine, agents and pattern, for the comparison with the forwarding proxy. */
  const percentiles = new Map<string, [number, number]>();
  const keep = (engine: string, agents: number, pattern: string, run: LoadRun) => {
    const overheads = run.samples.map((sample) => sample.overheadMs);
    percentiles.set(`${engine}|${String(agents)}|${pattern}`, [percentile(overheads, 0.5), percentile(overheads, 0.95)]);
  };
  const historiesOf = (agents: number) => Array.from({ length: agents }, (_, index) => syntheticHistory(index + 1, HISTORY_TOKENS));
  // The floor first: the same agents and turns through a proxy that only forwards.
  for (const [agents, pacedTurns, backToBackTurns] of plans) {
    await withProxy(startForwardingProxy, async (proxy) => {
      for (const [pattern, run] of await runPatterns(proxy, historiesOf(agents), pacedTurns, backToBackTurns)) {
        keep(FORWARDER, agents, pattern, run);
        rows.push([FORWARDER, String(agents), pattern, ...loadRow(run), proxy.peakRssMiB().toFixed(0), '–']);
      }
    });
  }
  for (const engine of list) {
    for (const [agents, pacedTurns, backToBackTurns] of plans) {
      const opened = await engine.open();
      try {
        await withServe(opened.flags, async (serve) => {
          const runs = await runPatterns(serve, historiesOf(agents), pacedTurns, backToBackTurns);
          const peak = serve.peakRssMiB().toFixed(0);
          for (const [pattern, run] of runs) {
            keep(engine.name, agents, pattern, run);
            rows.push([engine.name, String(agents), pattern, ...loadRow(run), peak, String(agentsOf(run.samples))]);
          }
        });
      } finally {
        await opened.drop();
      }
    }
  }
  const against: string[][] = [];
  for (const [agents] of plans) {
    for (const pattern of [PACED, WITH_TOOLS]) {
      const floor = percentiles.get(`${FORWARDER}|${String(agents)}|${pattern}`);
      if (!floor) continue;
      const cells = list.map((engine) => {
        const own = percentiles.get(`${engine.name}|${String(agents)}|${pattern}`);
        return own ? `${formatMs(own[0])} / ${formatMs(own[1])} (${formatRatio(own[0] / floor[0])} / ${formatRatio(own[1] / floor[1])})` : '–';
      });
      against.push([String(agents), pattern, `${formatMs(floor[0])} / ${formatMs(floor[1])}`, ...cells]);
    }
  }
  return `### Proxy: overhead under load, histories of about 100k tokens, budget ${BUDGET.toLocaleString('en-US')} (goal: p50 ≤ 5 ms, p95 ≤ 15 ms)${note}\n\n${markdownTable(
    ['proxy', 'agents side by side', 'each agent between turns', 'timed requests', 'overhead p50 ms', 'p95 ms', 'p99 ms', 'client latency p50 ms', 'requests/s', 'proxy CPU ms per request', 'proxy peak RSS MiB', 'agents stored'],
    rows,
  )}\n\n${markdownTable(
    ['agents side by side', 'each agent between turns', 'forwarding only: overhead p50 / p95 ms', ...list.map((engine) => `serve on ${engine.name}: p50 / p95 ms (× forwarding only)`)],
    against,
  )}\n\nThe rows "${FORWARDER}" are the floor of the clock on this machine, measured in the same run: a proxy that only forwards (bench/forwarding-proxy.ts, a process of its own: it reads the body, parses it and serializes it again, sends it upstream with \`fetch\` and answers with the same overhead clock), no store and no window. The rows PGlite and PostgreSQL are \`sliding-context serve\` in its own process (the built CLI, PGlite in a directory or the server), the clients and the upstream in the benchmark's process. Each agent's history is sent first (not timed; \`serve\` stores it); then every agent sends its next turns (the whole history again, the last answer and a new user message), all agents at once: first paced, each agent pausing between turns (${String(PACE_MS / 2000)} to ${String((PACE_MS * 3) / 2000)} s, as a model's answer and the agent's tools take at least that), then back to back, each agent sending its next turn as soon as it has the answer, which saturates the proxy, then paced again with turns that call a tool: the user asks for the tests, the upstream answers with a call of \`run_tests\`, and the agent sends its output (${String(TOOL_RESULT_BYTES / 1000)} KB of test log) in a second request, after a pause of its own; both requests are timed. Overhead is the proxy's \`x-sliding-context-overhead-ms\`: from the request's headers to the answer's headers, the upstream's time excluded (see the notes below). "proxy CPU ms per request" is the CPU time the proxy's process used during the run (user and system, all its threads, storing the answers included) divided by its requests: the proxy's work, however loaded the machine. "agents stored" shows every turn continued its own agent.`;
}

/** Each turn's pause in the growth runs: enough for the answer to be stored before the next turn comes. */
const GROWTH_PAUSE_MS = 100;

async function growthTable(quick: boolean): Promise<string> {
  const sizes = quick ? [1_000, 100_000] : [1_000, 1_000_000];
  const requests = quick ? 15 : 40;
  const rows: string[][] = [];
  let base: number | undefined;
  for (const size of sizes) {
    const directory = mkdtempSync(join(tmpdir(), 'sc-bench-proxy-growth-'));
    try {
      const dataDir = join(directory, 'data');
      const fillStarted = performance.now();
      const store = await HistoryStore.open({ dataDir });
      try {
        await fillBusyStore(store, size);
      } finally {
        await store.close();
      }
      const fillMs = performance.now() - fillStarted;
      const { samples, firstMs } = await withServe(['--data-dir', dataDir], async (serve) => {
        const firstStarted = performance.now();
        const conversations = await seedConversations(serve.url, [syntheticHistory(7, HISTORY_TOKENS)]);
        const seededMs = performance.now() - firstStarted;
        return { ...(await runTurns(serve.url, conversations, requests, { pauseMs: GROWTH_PAUSE_MS })), firstMs: seededMs };
      });
      const p50 = percentile(samples.map((sample) => sample.overheadMs), 0.5);
      base ??= p50;
      rows.push([
        size.toLocaleString('en-US'), `${(fillMs / 1000).toFixed(1)} s`, formatMs(firstMs),
        formatMs(p50), formatMs(percentile(samples.map((sample) => sample.overheadMs), 0.95)), formatRatio(p50 / base),
      ]);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }
  return `### Proxy: overhead as the store grows, PGlite, one agent of about 100k tokens (goal: ${sizes.at(-1)?.toLocaleString('en-US') ?? ''} within 1.5× of 1,000)\n\n${markdownTable(
    ['messages stored (other agents)', 'filled in', 'first request, ms (stores the history)', 'overhead p50 ms', 'p95 ms', 'p50 vs 1,000'],
    rows,
  )}\n\nThe store (a PGlite directory) holds the agents of other conversations (10,000 short messages each, stored in batches of 2,000) before \`serve\` opens it in its own process; the measured agent's first request is placed by the store's prefix rule and stores its history, the ${String(requests)} timed turns after it (each after a pause of ${String(GROWTH_PAUSE_MS / 2)} to ${String((GROWTH_PAUSE_MS * 3) / 2)} ms) continue the open conversation.`;
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
