import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { newAgentMeta } from '../../conversation/agent-settings.js';
import { HISTORY_OUTLINE_VIEW, historyOutlineToJson } from '../../conversation/history-outline.js';
import { HISTORY_TIMELINE_VIEW, historyTimelineToJson } from '../../conversation/saved-history-timeline.js';
import type { MessageOutline, TimelineEntry } from '../../store/history-store.js';
import { saveView } from '../../store/saved-views.js';
import { countTargetKey } from '../../tokens/token-counter.js';
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

  it('shows a summary that stands for 200,000 exchanges', async () => {
    const dataDir = savedHistory(200_010, 200_000);
    // The first exchange is not pinned, so the summary stands for it too.
    const json = JSON.parse((await runCli(['history', agentId, '--data-dir', dataDir, '--json'])).stdout) as { summary: { exchanges: { first: number; last: number } }; exchanges: unknown[] };
    expect(json.summary.exchanges).toEqual({ first: 0, last: 200_000 });
    expect(json.exchanges).toHaveLength(200_010);
  }, 120_000);
});
