/**
 * What `compact` leaves in view on recorded agent sessions: the request before and after, and the
 * share of file paths (named by the user or by tool-call arguments) still visible in the summary or
 * the window, for plain eviction, the previous one-line-per-exchange digest and the structured digest.
 */
import { digestSummarizer } from '../src/condense/digest-summarizer.js';
import type { Summarizer } from '../src/condense/summarizer.js';
import { type CompactVisibility, measureCompact, readRecordedConversation } from '../src/testing/compact-visibility.js';
import { loadTokenCounter } from '../src/tokens/load-token-counter.js';
import { markdownTable } from './_table.js';
import { previousDigestSummarizer } from './_previous-digest.js';

/** The recorded sessions, with the budget the summary's cap is a share of (default: the request before) and exchanges per pass. */
export const DIGEST_TRANSCRIPTS = [
  { name: 'Claude Code 1.0 session (one exchange: nothing to compact)', file: 'src/sources/__fixtures__/claude-code-1.0-linear-session.jsonl' },
  { name: 'Claude Code 2.1 session', file: 'src/sources/__fixtures__/claude-code-2.1-parallel-session.jsonl' },
  { name: 'Claude Code session with a /clear', file: 'src/sources/__fixtures__/claude-code-session.jsonl' },
  { name: 'Codex rollout with a compaction', file: 'src/sources/__fixtures__/codex-rollout.jsonl' },
  { name: 'coding-agent-session.json, 24,000 budget', file: 'examples/coding-agent-session.json', budgetTokens: 24_000, passExchanges: 4 },
  { name: 'long-coding-session.json (demo), 16,000 budget', file: 'examples/long-coding-session.json', budgetTokens: 16_000, passExchanges: 4 },
] as const;

const percent = (part: number, whole: number) => (whole === 0 ? '—' : `${Math.round((100 * part) / whole)}%`);

function cells(measure: CompactVisibility | undefined): string[] {
  if (!measure) return ['—', '—'];
  return [measure.requestTokensAfter.toLocaleString('en-US'), `${percent(measure.visiblePaths.length, measure.paths.length)} (${measure.visiblePaths.length}/${measure.paths.length})`];
}

export async function runDigestBenchmarks(): Promise<string[]> {
  const counter = await loadTokenCounter();
  const target = { counter, provider: 'openai', model: 'gpt-4o' };
  const summarizers: readonly (Summarizer | undefined)[] = [undefined, previousDigestSummarizer(), digestSummarizer()];
  const rows: string[][] = [];
  for (const transcript of DIGEST_TRANSCRIPTS) {
    const conversation = readRecordedConversation(transcript.file);
    const options = { ...target, budgetTokens: 'budgetTokens' in transcript ? transcript.budgetTokens : undefined, passExchanges: 'passExchanges' in transcript ? transcript.passExchanges : undefined };
    const measures = [];
    for (const summarizer of summarizers) measures.push(await measureCompact(conversation, { ...options, summarizer }));
    const [first] = measures;
    rows.push([transcript.name, String(first?.exchanges ?? 1), first?.requestTokensBefore.toLocaleString('en-US') ?? '—', ...measures.flatMap(cells)]);
  }
  const header = ['transcript', 'exchanges', 'request before', 'eviction: after', 'eviction: paths visible', 'previous digest: after', 'previous digest: paths visible', 'digest: after', 'digest: paths visible'];
  return [
    '## Digest: what `compact` leaves in view\n\nTokens (o200k_base, openai/gpt-4o) of the request before and after compacting everything but the latest exchange; the summary capped at 10% of the budget (the request before but at least 2,000 tokens, unless a budget is given; the examples fold 4 exchanges per pass, rolling). Paths visible: file paths named by the user or by tool-call arguments that are still in the summary or the window.\n\n'
    + markdownTable(header, rows),
  ];
}
