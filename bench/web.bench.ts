/**
 * The web view on a long history: a PGlite store filled with 100,000 exchanges (400,000
 * messages, stored with their counts in bulk appends), then the time the server takes to build
 * the agent's history JSON the first time, and the page's first render in headless Chromium:
 * from navigation to the first timeline rows and the chart drawn, while the server holds the
 * history, and after appending one exchange (which the server brings what it holds up to date
 * from), with the page's own part of it.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { bundleWebApp } from '../scripts/bundle-web-app.js';
import { newAgentMeta } from '../src/conversation/agent-settings.js';
import { HistoryStore } from '../src/store/history-store.js';
import { loadTokenCounter } from '../src/tokens/load-token-counter.js';
import { startWebServer } from '../src/web/start-web-server.js';
import { formatMs, markdownTable, median } from './_table.js';
import { agentConversation } from './conversion.bench.js';
import { appendCounted } from './workloads/append-counted.js';

/** The rows the page reads first (web/timeline-store.ts). */
const FIRST_ROWS = 300;

const target = { provider: 'openai', model: 'gpt-4o' };

/** Runs the web benchmarks; `quick` fills 10,000 exchanges instead of 100,000. */
export async function runWebBenchmarks(quick: boolean): Promise<string[]> {
  const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(chromiumPath)) return [`## Web view\n\nSkipped: no Chromium at ${chromiumPath} (set CHROMIUM_PATH).`];
  const exchanges = quick ? 10_000 : 100_000;
  const directory = mkdtempSync(join(tmpdir(), 'sliding-context-web-bench-'));
  const dataDir = join(directory, 'data');
  const assetsDir = join(directory, 'app');
  const store = await HistoryStore.open({ dataDir });
  const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
  try {
    await bundleWebApp(assetsDir);
    const counter = await loadTokenCounter({ targets: [target] });
    const fillStart = performance.now();
    const agentId = await store.createAgent(newAgentMeta(target, { budgetTokens: 100_000 }, counter.countPreamble(target)), { name: 'long-run' });
    // 4 messages an exchange, appended 10,000 at a time with their counts.
    for (let start = 0; start < exchanges * 4; start += 10_000) {
      await appendCounted(store, agentId, agentConversation(Math.min(10_000, exchanges * 4 - start), start / 4), counter, target);
    }
    const fillMs = performance.now() - fillStart;
    const server = await startWebServer({ store, port: 0, assetsDir });
    try {
      const get = async (path: string) => (await fetch(`${server.url}api/agents/${agentId}/${path}`)).text();
      const timed = async <Value>(work: () => Promise<Value>) => {
        const start = performance.now();
        const value = await work();
        return { value, ms: performance.now() - start };
      };
      // One exchange more, as a turn of the agent stores it: the server hears the write and
      // brings what it holds up to date from the rows stored since.
      let appended = 0;
      const appendExchange = () => appendCounted(store, agentId, agentConversation(4, exchanges + appended++), counter, target);
      const whole = await timed(() => get('history'));
      const renders: number[] = [];
      for (let run = 0; run < 4; run++) renders.push((await openPage(browser, server.url, agentId, exchanges + appended)).ms);
      const pageData: number[] = [];
      const wholeTimelines: number[] = [];
      const histories: number[] = [];
      const afterWrite: PageLoad[] = [];
      for (let run = 0; run < 3; run++) {
        await appendExchange();
        // As the page reads them: the rows around the cutoff, and the chart's series.
        pageData.push((await timed(() => Promise.all([get(`timeline?count=${FIRST_ROWS}`), get('requests')]))).ms);
        await appendExchange();
        wholeTimelines.push((await timed(() => get('timeline'))).ms);
        await appendExchange();
        histories.push((await timed(() => get('history'))).ms);
        await appendExchange();
        afterWrite.push(await openPage(browser, server.url, agentId, exchanges + appended));
      }
      const ms = (value: number) => `${formatMs(value)} ms`;
      const table = markdownTable(
        ['history', 'fill (bulk append)', 'history JSON, first read', 'JSON size', 'first render, history held (median of 4)'],
        [[`${exchanges.toLocaleString('en-US')} exchanges`, ms(fillMs), ms(whole.ms), `${(whole.value.length / 2 ** 20).toFixed(1)} MB`, ms(median(renders))]],
      );
      const writes = markdownTable(
        ['after appending one exchange (median of 3)', 'time'],
        [
          [`the page's data: \`/timeline?count=${FIRST_ROWS}\` and \`/requests\``, ms(median(pageData))],
          ['the whole timeline: `/timeline`', ms(median(wholeTimelines))],
          ['the history JSON: `/history`', ms(median(histories))],
          ['first render of the page', ms(median(afterWrite.map((load) => load.ms)))],
          ['of which the page\'s own work: from its data received to the first rows drawn', ms(median(afterWrite.map((load) => load.ownMs)))],
        ],
      );
      return [`## Web view (PGlite, headless Chromium)\n\n${table}\n\n${writes}`];
    } finally {
      await server.close();
    }
  } finally {
    await browser.close();
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

/** A page opened: from navigation to the first rows and the chart drawn, and of that the page's own work after its data arrived. */
interface PageLoad {
  readonly ms: number;
  readonly ownMs: number;
}

/** Notes when the first timeline row is drawn, in the page's own clock. */
const NOTE_FIRST_ROWS = `new MutationObserver((_, observer) => {
  if (document.querySelector('[data-testid="exchange"]')) {
    window.firstRowsAt = performance.now();
    observer.disconnect();
  }
}).observe(document, { childList: true, subtree: true });`;

/** When the page received its data (the last byte of its first `/timeline` read) and drew its first rows, in its own clock. */
const PAGE_TIMES = `(() => {
  const timeline = performance.getEntriesByType('resource').find((entry) => new URL(entry.name).pathname.endsWith('/timeline'));
  return { dataAt: timeline ? timeline.responseEnd : 0, rowsAt: window.firstRowsAt ?? 0 };
})()`;

/**
 * Opens the agent's page and waits for its first rows and its chart; checks that only the rows in
 * view are drawn and that the chart has one point per turn.
 */
async function openPage(browser: Browser, url: string, agentId: string, turns: number): Promise<PageLoad> {
  // The page's CSP forbids eval, which reading a value in the page uses.
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, bypassCSP: true });
  try {
    await page.addInitScript(NOTE_FIRST_ROWS);
    const start = performance.now();
    await page.goto(`${url}?agent=${encodeURIComponent(agentId)}`);
    await page.waitForSelector('[data-testid="exchange"]');
    await page.waitForSelector('[data-testid="request-chart"] canvas');
    const ms = performance.now() - start;
    const drawn = await page.locator('[data-testid="exchange"]').count();
    if (drawn > 200) throw new Error(`the list drew ${drawn} rows: it should draw only those in view`);
    const points = Number(await page.getAttribute('[data-testid="request-chart"]', 'data-points'));
    if (points !== turns) throw new Error(`the chart has ${points} points for ${turns} turns`);
    const { dataAt, rowsAt } = await page.evaluate<{ dataAt: number; rowsAt: number }>(PAGE_TIMES);
    return { ms, ownMs: rowsAt - dataAt };
  } finally {
    await page.close();
  }
}
