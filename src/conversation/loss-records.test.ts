import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/_test-cli.js';
import { digestSummarizer } from '../condense/digest-summarizer.js';
import type { LossItem } from '../condense/loss-report.js';
import type { Summarizer } from '../condense/summarizer.js';
import { HistoryStore } from '../store/history-store.js';
import { readRecordedConversation } from '../testing/compact-visibility.js';
import { createServerDatabase } from '../testing/server-database.js';
import { loadTokenCounter } from '../tokens/load-token-counter.js';
import { openConversation } from './conversation.js';
import { historyOutlineFromJson, historyOutlineToJson, readHistoryOutline } from './history-outline.js';
import { readLossRecords } from './loss-records.js';

const counter = await loadTokenCounter();
const target = { provider: 'openai', model: 'gpt-4o' };
const CODEX = 'src/sources/__fixtures__/codex-rollout.jsonl';
const CLAUDE_CODE = 'src/sources/__fixtures__/claude-code-session.jsonl';

/** A summarizer that keeps one line: whatever the exchanges named is lost but what the window holds. */
const terse: Summarizer = { name: 'terse', summarize: () => Promise.resolve({ text: 'Work went on.', finishReason: 'stop', cost: { inputTokens: 0, outputTokens: 0 } }) };

/** Each item names the exchange that held it: the seq of a stored message that starts an exchange, at or before its text. */
async function expectExchangesHold(store: HistoryStore, agentId: string, items: readonly LossItem[]): Promise<void> {
  const history = await store.history(agentId);
  const seqs = history.map((entry) => entry.seq);
  for (const item of items) {
    const start = seqs.indexOf(item.exchange);
    expect(start, `${item.kind} ${item.text}`).not.toBe(-1);
    expect(history[start]?.message.role).toBe('user');
  }
}

function describeLossRecords(engine: string, open: () => Promise<HistoryStore>, cliFlags: () => Promise<string[]>) {
  describe(`loss reports on ${engine}`, () => {
    it('records with each eviction the paths it took out of view, at their exchange; the history lists them, saved outline included', async () => {
      const store = await open();
      try {
        const conversation = await openConversation({ store, ...target, counter, budgetTokens: 700 });
        const names = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];
        for (const name of names) {
          await conversation.append([{ role: 'user', content: `Look at src/${name}/entry.ts and report. ${'Some context. '.repeat(30)}` }, { role: 'assistant', content: 'Read it.' }]);
          await conversation.endTurn();
        }
        const evictions = await store.ranges(conversation.agentId, { kind: 'evicted' });
        expect(evictions.length).toBeGreaterThan(0);
        const records = await readLossRecords(store, conversation.agentId);
        expect(records.map((record) => record.kind)).toEqual(evictions.map(() => 'evicted'));
        const dropped = records.flatMap((record) => record.dropped);
        const window = JSON.stringify((await conversation.request()).report.messages);
        const evictedPaths = names.map((name) => `src/${name}/entry.ts`).filter((path) => !window.includes(path));
        expect(evictedPaths.length).toBeGreaterThan(0);
        expect(dropped.filter((item) => item.kind === 'path').map((item) => item.text)).toEqual(evictedPaths);
        await expectExchangesHold(store, conversation.agentId, dropped);
        expect((await conversation.historyView()).losses).toEqual(records);
        const outline = await readHistoryOutline(store, conversation.agentId);
        expect(historyOutlineFromJson(JSON.parse(JSON.stringify(historyOutlineToJson(outline))))?.losses).toEqual(records);
      } finally {
        await store.close();
      }
    });

    it.each([CODEX, CLAUDE_CODE])('compact shows the loss report before it replaces anything, and records it with the summary (%s)', async (file) => {
      const store = await open();
      try {
        const recorded = readRecordedConversation(file);
        for (const summarizer of [digestSummarizer(), terse]) {
          const conversation = await openConversation({ store, ...target, counter, system: recorded.system, tools: recorded.tools, condense: { summarizer } });
          await conversation.append(recorded.messages);
          const preview = await conversation.compact({ dryRun: true });
          expect(await store.ranges(conversation.agentId, { kind: 'summary' })).toEqual([]);
          const result = await conversation.compact();
          expect(result.fallback).toBeNull();
          expect(result.dropped).toEqual(preview.dropped);
          for (const item of result.dropped) expect(result.summary).not.toContain(item.text);
          await expectExchangesHold(store, conversation.agentId, result.dropped);
          const [summary] = await store.ranges(conversation.agentId, { kind: 'summary' });
          expect(summary?.data.dropped).toEqual(result.dropped);
          const history = await conversation.historyView();
          expect(history.losses?.at(-1)).toMatchObject({ kind: 'summary', reason: summarizer.name, dropped: result.dropped });
          // With one line of summary, the files the session touched are reported lost.
          if (summarizer === terse) expect(result.dropped.some((item) => item.kind === 'path')).toBe(true);
        }
      } finally {
        await store.close();
      }
    });

    it('compact --json gives dropped as { kind, text, exchange }, --dry-run shows it first, history lists one line per summary', async () => {
      const flags = await cliFlags();
      const session = ['alpha', 'beta', 'gamma', 'delta'].flatMap((name) => [
        // Past the 600 characters of a request the digest keeps: the path is lost once the exchange leaves.
        { role: 'user', content: `${'It reads the queue. '.repeat(32)}Fix src/${name}/handler.ts now.` },
        { role: 'assistant', content: `It reads the queue and retries. ${'The handler is fine. '.repeat(20)}` },
      ]);
      const { agentId } = JSON.parse((await runCli(['import', '-', '--json', ...flags], { stdin: JSON.stringify(session) })).stdout) as { agentId: string };
      const dryRun = await runCli(['compact', agentId, '--dry-run', ...flags]);
      expect(dryRun.stdout).toMatch(/^Earlier in this conversation[\s\S]*\n\nLoss report: [\s\S]*\n\nDry run: nothing changed\./);
      const json = JSON.parse((await runCli(['compact', agentId, '--json', ...flags])).stdout) as { dropped: LossItem[] };
      expect(Array.isArray(json.dropped)).toBe(true);
      for (const item of json.dropped) expect(Object.keys(item)).toEqual(['kind', 'text', 'exchange']);
      expect(json.dropped.filter((item) => item.kind === 'path').map((item) => item.text)).toEqual(['src/alpha/handler.ts', 'src/beta/handler.ts', 'src/gamma/handler.ts']);
      expect(dryRun.stdout).toContain('- path src/alpha/handler.ts (exchange from message ');
      const history = JSON.parse((await runCli(['history', agentId, '--json', ...flags])).stdout) as { losses: { kind: string; dropped: LossItem[] }[]; summary: { dropped: LossItem[] } };
      expect(history.losses.at(-1)).toMatchObject({ kind: 'summary', dropped: json.dropped });
      expect(history.summary.dropped).toEqual(json.dropped);
      const text = (await runCli(['history', agentId, ...flags])).stdout;
      expect(text).toMatch(/\nLoss reports:\n {2}just now {2}summary \(digest\): dropped 3: path src\/alpha\/handler\.ts, /);
    }, 300_000);
  });
}

const directory = mkdtempSync(join(tmpdir(), 'sliding-context-loss-'));
let stores = 0;
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});
describeLossRecords('PGlite', () => HistoryStore.open({ memory: true }), () => Promise.resolve(['--data-dir', join(directory, `store-${stores++}`)]));

const serverUrl = process.env.DATABASE_URL;
if (serverUrl) {
  const databases: Awaited<ReturnType<typeof createServerDatabase>>[] = [];
  afterAll(async () => {
    for (const database of databases) await database.drop();
  });
  const fresh = async () => {
    const database = await createServerDatabase(serverUrl, 'loss');
    databases.push(database);
    return database.url;
  };
  describeLossRecords('the PostgreSQL server', async () => HistoryStore.open({ databaseUrl: await fresh() }), async () => ['--database-url', await fresh()]);
} else {
  describe('loss reports on the PostgreSQL server', () => {
    it.skip('skipped: DATABASE_URL is not set (CI sets it to the local server)', () => undefined);
  });
}
