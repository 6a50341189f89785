/**
 * The web view on a long history: a PGlite store filled with 100,000 exchanges (400,000
 * messages, stored with their counts in bulk appends), then the time the server takes to build
 * the agent's history JSON, and the page's first render in headless Chromium: from navigation
 * to the first timeline rows drawn (the chart and the list), the first time and once the
 * server holds the history.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { bundleWebApp } from '../scripts/bundle-web-app.js';
import { newAgentMeta } from '../src/conversation/agent-settings.js';
import { HistoryStore } from '../src/store/history-store.js';
import { loadTokenCounter } from '../src/tokens/load-token-counter.js';
import { startWebServer } from '../src/web/start-web-server.js';
import { formatMs, markdownTable, median } from './_table.js';
import { agentConversation } from './conversion.bench.js';
import { appendCounted } from './workloads/append-counted.js';

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
      const historyStart = performance.now();
      const body = await (await fetch(`${server.url}api/agents/${agentId}/history`)).text();
      const historyMs = performance.now() - historyStart;
      const renders: number[] = [];
      for (let run = 0; run < 4; run++) {
        const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
        const start = performance.now();
        await page.goto(`${server.url}?agent=${encodeURIComponent(agentId)}`);
        await page.waitForSelector('[data-testid="exchange"]');
        await page.waitForSelector('[data-testid="request-chart"] canvas');
        renders.push(performance.now() - start);
        const drawn = await page.locator('[data-testid="exchange"]').count();
        if (drawn > 200) throw new Error(`the list drew ${drawn} rows: it should draw only those in view`);
        await page.close();
      }
      // The first page load above ran after the history request, so it found the history kept: a
      // write empties it, and the next load pays for planning again.
      await store.renameAgent(agentId, 'long-run');
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      const coldStart = performance.now();
      await page.goto(`${server.url}?agent=${encodeURIComponent(agentId)}`);
      await page.waitForSelector('[data-testid="exchange"]');
      const coldMs = performance.now() - coldStart;
      await page.close();
      const table = markdownTable(
        ['history', 'fill (bulk append)', 'history JSON (server)', 'JSON size', 'first render, history kept (median of 4)', 'first render after a write'],
        [[`${exchanges.toLocaleString('en-US')} exchanges`, `${formatMs(fillMs)} ms`, `${formatMs(historyMs)} ms`, `${(body.length / 2 ** 20).toFixed(1)} MB`, `${formatMs(median(renders))} ms`, `${formatMs(coldMs)} ms`]],
      );
      return [`## Web view (PGlite, headless Chromium)\n\n${table}`];
    } finally {
      await server.close();
    }
  } finally {
    await browser.close();
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  }
}
