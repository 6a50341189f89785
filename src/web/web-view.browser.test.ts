import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleWebApp } from '../../scripts/bundle-web-app.js';
import { runCli } from '../cli/_test-cli.js';
import { HistoryStore } from '../store/history-store.js';
import { startWebServer, type WebServer } from './start-web-server.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasBrowser = existsSync(chromiumPath);
if (!hasBrowser) console.warn(`The web view's browser tests are skipped: no Chromium at ${chromiumPath} (set CHROMIUM_PATH).`);

interface HistoryJson {
  exchanges: { index: number; inWindow: boolean; pinned: boolean; summarized: boolean }[];
  timeline: { type: string; index?: number | null; agentId: string; firstSeq?: number }[];
  budgetTokens: number;
}

/** The rows drawn now, top to bottom: their type and, for an exchange, its number (read in the page). */
const DRAWN_ROWS = `[...document.querySelectorAll('.virtual-row')]
  .map((row) => ({ top: parseFloat(row.style.top), type: row.firstElementChild?.dataset.testid ?? '', index: row.firstElementChild?.dataset.index ?? '' }))
  .sort((a, b) => a.top - b.top)
  .map(({ type, index }) => ({ type, index: index === '' ? null : Number(index) }))`;

async function drawnRows(page: Page): Promise<{ type: string; index: number | null }[]> {
  return page.evaluate<{ type: string; index: number | null }[]>(DRAWN_ROWS);
}

describe.skipIf(!hasBrowser)('the web view in a browser, on the demo\'s store', () => {
  const directory = mkdtempSync(join(tmpdir(), 'sliding-context-web-'));
  const dataDir = join(directory, 'data');
  const assetsDir = join(directory, 'app');
  let agentId: string;
  let history: HistoryJson;
  let printed: unknown;
  let store: HistoryStore | undefined;
  let server: WebServer | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let url: string;
  const openStore = () => store as HistoryStore;

  beforeAll(async () => {
    // The same replay as `sliding-context demo --data-dir`, then what `history --json --all` prints.
    await runCli(['demo', '--data-dir', dataDir, '--json']);
    const agents = JSON.parse((await runCli(['agents', '--json', '--data-dir', dataDir])).stdout) as { agentId: string }[];
    agentId = agents[0]?.agentId ?? '';
    printed = JSON.parse((await runCli(['history', agentId, '--json', '--all', '--data-dir', dataDir])).stdout);
    history = printed as HistoryJson;
    await bundleWebApp(assetsDir, { minify: false });
    store = await HistoryStore.open({ dataDir });
    server = await startWebServer({ store, port: 0, assetsDir });
    url = server.url;
    browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
    // The page's CSP forbids eval, which waiting on an expression in the page uses.
    page = await browser.newPage({ viewport: { width: 1400, height: 900 }, bypassCSP: true });
    await page.goto(url);
    await page.waitForSelector('[data-testid="cutoff"]');
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await store?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('serves /api/agents/<id>/history as exactly what history --json --all prints, less the window\'s messages', async () => {
    const { messages: _windowMessages, ...served } = printed as Record<string, unknown>;
    expect(await (await fetch(`${url}api/agents/${agentId}/history`)).json()).toEqual(served);
  });

  it('serves /timeline?count= as windows of /timeline, with what places them', async () => {
    type Timeline = { agents: string[]; rows: unknown[][]; summary: unknown; exchangeCount: number };
    type Window = Timeline & { rowCount: number; firstRow: number; cutoffRow: number; maxTokens: number; nextSeqs: (number | null)[] };
    const read = async <Value>(path: string) => (await (await fetch(`${url}api/agents/${agentId}/${path}`)).json()) as Value;
    const whole = await read<Timeline>('timeline');
    // Each row with its agent named, not indexed.
    const named = (answer: Timeline) =>
      answer.rows.map((row) => {
        const at = row[0] === 0 ? 6 : 3;
        return [...row.slice(0, at), answer.agents[row[at] as number], ...row.slice(at + 1)];
      });
    const cutoffRow = whole.rows.findIndex((row) => row[0] === 0 && row[5] === 'in');
    const maxTokens = Math.max(1, ...whole.rows.map((row) => (row[0] === 0 ? (row[4] as number) : 0)));
    for (const [first, count] of [[0, 7], [5, 3], [whole.rows.length - 2, 10]] as const) {
      const part = await read<Window>(`timeline?count=${count}&first=${first}`);
      const firstRow = Math.max(0, Math.min(first, whole.rows.length - count));
      expect(named(part)).toEqual(named(whole).slice(firstRow, firstRow + count));
      expect(part).toMatchObject({ rowCount: whole.rows.length, firstRow, cutoffRow, maxTokens, summary: whole.summary, exchangeCount: whole.exchangeCount });
      expect(part.nextSeqs).toHaveLength(part.agents.length);
    }
    const around = await read<Window>('timeline?count=4');
    expect(around.firstRow).toBeLessThanOrEqual(cutoffRow);
    expect(around.firstRow + around.rows.length).toBeGreaterThan(cutoffRow);
    expect((await fetch(`${url}api/agents/${agentId}/timeline?count=0`)).status).toBe(400);
  });

  it('draws the cutoff between the last exchange out of the window and the first one in it, as history --json has them', async () => {
    const firstIn = history.exchanges.find((exchange) => exchange.inWindow && !exchange.pinned);
    expect(firstIn).toBeDefined();
    const rows = await drawnRows(page);
    const cutoff = rows.findIndex((row) => row.type === 'cutoff');
    const before = rows.slice(0, cutoff).findLast((row) => row.type === 'exchange');
    const after = rows.slice(cutoff + 1).find((row) => row.type === 'exchange');
    expect(before?.index).toBe((firstIn?.index ?? 0) - 1);
    expect(after?.index).toBe(firstIn?.index);
    expect(history.exchanges[(firstIn?.index ?? 0) - 1]?.inWindow).toBe(false);
    // The demo's digest covers what was evicted: its row sits under the rule.
    expect(rows[cutoff + 1]?.type).toBe('summary');
  });

  it('charts one point per turn, none above the budget line', async () => {
    const chart = await page.waitForSelector('[data-testid="request-chart"] canvas');
    expect(chart).toBeTruthy();
    const points = Number(await page.getAttribute('[data-testid="request-chart"]', 'data-points'));
    const maxTokens = Number(await page.getAttribute('[data-testid="request-chart"]', 'data-max-tokens'));
    const minBudget = Number(await page.getAttribute('[data-testid="request-chart"]', 'data-min-budget'));
    expect(points).toBe(history.exchanges.length);
    expect(maxTokens).toBeGreaterThan(history.budgetTokens / 2);
    expect(maxTokens).toBeLessThanOrEqual(minBudget);
    expect(minBudget).toBeLessThanOrEqual(history.budgetTokens);
  });

  it('opens an exchange\'s messages in full on a click', async () => {
    const row = history.timeline.find((entry) => entry.type === 'exchange' && entry.index === 5);
    const [stored] = await openStore().messages(row?.agentId ?? '', row?.firstSeq ?? 0, row?.firstSeq ?? 0);
    const content: unknown = stored?.message.role === 'user' ? stored.message.content : undefined;
    const text = typeof content === 'string' ? content : '';
    expect(text.length).toBeGreaterThan(10);
    await page.evaluate('document.querySelector(".virtual-list").scrollTo(0, 0)');
    await page.click('[data-testid="exchange"][data-index="5"]');
    await page.waitForSelector('[data-testid="message"]');
    const panel = (await page.textContent('[data-testid="message-panel"]')) ?? '';
    expect(panel).toContain(text);
  });

  it('shows a fork made with the store in the tree, without a reload', async () => {
    const child = await openStore().fork(agentId, {}, { name: 'web-fork' });
    const entry = await page.waitForSelector(`[data-testid="agent"][data-agent-id="${child}"]`, { timeout: 2_000 });
    expect(await entry.getAttribute('data-parent-id')).toBe(agentId);
    expect(await entry.textContent()).toContain('web-fork');
  });

  it('shows a message appended by another process within about a second, without a reload', async () => {
    const text = 'A question asked from another process';
    await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/store/_test-write-child.ts', dataDir, 'append', agentId, text], { cwd: root });
    const appended = Date.now();
    // The newest row is at the end of the list: the list is kept scrolled there while waiting.
    const shown = `(() => {
      const list = document.querySelector('.virtual-list');
      list.scrollTop = list.scrollHeight;
      list.dispatchEvent(new Event('scroll'));
      return [...document.querySelectorAll('[data-testid="exchange"] .title')].some((title) => title.title === ${JSON.stringify(text)});
    })()`;
    await page.waitForFunction(shown, undefined, { timeout: 5_000, polling: 50 });
    expect(Date.now() - appended).toBeLessThan(1_500);
  });

  it('takes a screenshot', async () => {
    const target = process.env.UPDATE_WEB_SCREENSHOT === '1' ? join(root, 'docs', 'web-view.png') : join(directory, 'web-view.png');
    mkdirSync(join(target, '..'), { recursive: true });
    // Opened afresh: the timeline scrolls to where the window begins.
    await page.setViewportSize({ width: 1200, height: 720 });
    await page.goto(`${url}?agent=${encodeURIComponent(agentId)}`);
    await page.waitForSelector('[data-testid="cutoff"]');
    await page.waitForSelector('[data-testid="request-chart"] canvas');
    await page.screenshot({ path: target });
    expect(statSync(target).size).toBeGreaterThan(10_000);
  });
});
