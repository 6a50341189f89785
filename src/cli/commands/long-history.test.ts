import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { newAgentMeta } from '../../conversation/agent-settings.js';
import { planOutlinedHistory } from '../../conversation/exchange-history.js';
import { HISTORY_OUTLINE_VIEW, historyOutlineFromJson, historyOutlineToJson } from '../../conversation/history-outline.js';
import { buildHistoryTimeline } from '../../conversation/history-timeline.js';
import { HISTORY_TIMELINE_VIEW, historyTimelineFromJson, historyTimelineToJson } from '../../conversation/saved-history-timeline.js';
import type { MessageOutline, TimelineEntry } from '../../store/history-store.js';
import { readSavedView, saveView } from '../../store/saved-views.js';
import { countTargetKey } from '../../tokens/token-counter.js';
import { agentHistoryJson } from '../../views/agent-history-json.js';
import { storedPlanOptions } from '../../views/read-agent-history.js';
import { runCli } from '../_test-cli.js';

const target = { provider: 'openai', model: 'gpt-4o' };
const agentId = '00000000-0000-4000-8000-000000000001';
const directories: string[] = [];

/**
 * A PGlite directory holding only the saved outline and timeline of an agent of `exchanges` exchanges of one
 * user message of 10 tokens: `history` plans and draws it without starting the database.
 * With `summarizedExchanges`, a summary stands for the first that many exchanges and one more.
 */
function savedHistory(exchanges: number, summarizedExchanges = 0): string {
  const directory = mkdtempSync(join(tmpdir(), 'sliding-context-long-history-'));
  directories.push(directory);
  const dataDir = join(directory, 'store');
  const count = { tokens: 10, exact: true, method: 'o200k_base', target: countTargetKey(target) };
  const createdAt = new Date('2026-01-01T00:00:00Z');
  const messages: MessageOutline[] = [];
  const entries: TimelineEntry[] = [];
  for (let exchange = 0; exchange < exchanges; exchange++) {
    messages.push({ agentId, seq: exchange + 1, role: 'user', count, createdAt, title: `request ${exchange}`, toolParts: [] });
    entries.push({ agentId, seq: exchange + 1, kind: 'user', label: null, tokens: 10, createdAt, startsExchange: true, title: `request ${exchange}`, toolNames: [] });
  }
  const summary = summarizedExchanges === 0
    ? undefined
    : {
        kind: 'summary',
        first: { agentId, seq: 1 },
        last: { agentId, seq: summarizedExchanges + 1 },
        data: { text: 'What happened.', summarizer: 'digest', cost: { inputTokens: 0, outputTokens: 0 }, coveredExchanges: summarizedExchanges, tokensBefore: 0, tokensAfter: 0 },
        createdAt,
      };
  const meta = newAgentMeta(target, { budgetTokens: 100_000 }, { tokens: 3, exact: true, method: 'o200k_base' });
  saveView(dataDir, HISTORY_OUTLINE_VIEW, agentId, historyOutlineToJson({ meta, messages, summary }));
  saveView(dataDir, HISTORY_TIMELINE_VIEW, agentId, historyTimelineToJson({ entries, forks: [], summaries: [] }));
  return dataDir;
}

afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

describe('history of a long agent: no call takes the history as arguments', () => {
  // 200,000 exchanges: more than a call takes as arguments (about 125,000 on Node's default stack).
  it('draws 200,000 exchanges, 190,001 of them out of the window', async () => {
    const dataDir = savedHistory(200_000);
    const { stdout } = await runCli(['history', agentId, '--data-dir', dataDir, '--policy', 'budget']);
    expect(stdout).toContain('Outside the window (kept in the history):');
    // 10 tokens an exchange and 3 of preamble: 9,999 exchanges fit 100,000 tokens.
    expect(stdout).toMatch(/9,999 exchanges in, 190,001 out/);
    expect(stdout.split('\n').length).toBeGreaterThan(200_000);
  }, 120_000);

  it('shows a summary that stands for 200,000 exchanges, and builds its JSON', async () => {
    const dataDir = savedHistory(200_010, 200_000);
    // The first exchange is not pinned, so the summary stands for it too.
    const { stdout } = await runCli(['history', agentId, '--data-dir', dataDir]);
    expect(stdout).toMatch(/^Summary \(digest\) of exchanges #0–#200000, /m);
    // `history --json` reads the window's messages from the store, which this directory lacks:
    // its JSON is built here from the saved views, as the command and the web view build it.
    const outline = historyOutlineFromJson(readSavedView(dataDir, HISTORY_OUTLINE_VIEW, agentId));
    const timeline = historyTimelineFromJson(readSavedView(dataDir, HISTORY_TIMELINE_VIEW, agentId));
    if (!outline || !timeline) throw new Error('the saved views were not read back');
    const planned = await planOutlinedHistory(outline, await storedPlanOptions(outline.meta));
    if (!planned) throw new Error('the outline was not planned');
    const rows = buildHistoryTimeline(agentId, timeline.entries, timeline.forks, planned.exchanges, timeline.summaries);
    const json = agentHistoryJson(agentId, planned, rows, { first: 0, count: rows.length, total: rows.length }, 'openai-chat');
    expect(json.summary?.exchanges).toEqual({ first: 0, last: 200_000 });
    expect(json.exchanges).toHaveLength(200_010);
    expect((JSON.parse(JSON.stringify(json)) as { timeline: unknown[] }).timeline).toHaveLength(200_010);
  }, 120_000);
});
