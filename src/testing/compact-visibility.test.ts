import { beforeAll, describe, expect, it } from 'vitest';
import { digestSummarizer } from '../condense/digest-summarizer.js';
import { loadTokenCounter } from '../tokens/load-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { measureCompact, namedPaths, pathsIn, readRecordedConversation } from './compact-visibility.js';

/** Recorded sessions; the examples under the budgets the README runs them with, folded 4 exchanges a pass. */
const TRANSCRIPTS = [
  { file: 'src/sources/__fixtures__/claude-code-2.1-parallel-session.jsonl' },
  { file: 'src/sources/__fixtures__/claude-code-session.jsonl' },
  { file: 'src/sources/__fixtures__/codex-rollout.jsonl' },
  { file: 'examples/coding-agent-session.json', budgetTokens: 24_000, passExchanges: 4 },
  { file: 'examples/long-coding-session.json', budgetTokens: 16_000, passExchanges: 4 },
];

let counter: TokenCounter;
beforeAll(async () => {
  counter = await loadTokenCounter();
});

describe('what compact leaves in view with the digest', () => {
  it('finds paths in user text and tool-call arguments, not in file contents or URLs', () => {
    expect(pathsIn('Fix src/a.ts and README.md, see https://x.dev/docs/a.ts; GET /labels/:id and invoice.total stay')).toEqual(['src/a.ts', 'README.md']);
    expect(namedPaths([
      { role: 'user', content: 'Look at lib/x.py.' },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: '1', toolName: 'Edit', input: { file_path: 'lib/y.py', old_string: 'see lib/z.py', new_string: '' } }] },
    ])).toEqual(['lib/x.py', 'lib/y.py']);
  });

  it.each(TRANSCRIPTS)('keeps at least 80% of the named file paths visible in $file', async ({ file, ...options }) => {
    const measure = await measureCompact(readRecordedConversation(file), { counter, provider: 'openai', model: 'gpt-4o', summarizer: digestSummarizer(), ...options });
    expect(measure).toBeDefined();
    expect(measure!.paths.length).toBeGreaterThan(0);
    expect(measure!.visiblePaths.length / measure!.paths.length).toBeGreaterThanOrEqual(0.8);
    // A session of a few hundred tokens is all but its requests: the size rule holds from a real one up.
    if (measure!.requestTokensBefore >= 500) expect(measure!.requestTokensAfter).toBeLessThanOrEqual(measure!.requestTokensBefore / 2);
  });

  it('digests the recorded sessions by the rules: files and their last action, commands with their outcome, errors', async () => {
    const digestOf = async (file: string) => (await measureCompact(readRecordedConversation(file), { counter, provider: 'openai', model: 'gpt-4o', summarizer: digestSummarizer() }))!.summary!;
    const codex = await digestOf('src/sources/__fixtures__/codex-rollout.jsonl');
    expect(codex).toContain('Files (last action):\n- src: read\n- src/cli.ts: edited\n');
    expect(codex).toContain('- `rg -n \'option\\(\' src` → exit 0\n');
    const claude = await digestOf('src/sources/__fixtures__/claude-code-session.jsonl');
    expect(claude).toContain('- /home/dev/invoices/src/invoice-service.ts: read\n');
    expect(claude).toContain('- `npm test -- invoices` → failed: FAIL tests/invoices.test.ts\n');
    expect(claude).toContain('- [unresolved] `npm test -- invoices`: FAIL tests/invoices.test.ts\n');
    const parallel = await digestOf('src/sources/__fixtures__/claude-code-2.1-parallel-session.jsonl');
    expect(parallel).toContain('- /home/dev/invoices/src/invoice.ts: edited\n- /home/dev/invoices/src/invoice-service.ts: edited\n');
    expect(parallel).toContain('Requests:\n- Rename `total` to `amount` on Invoice, everywhere it is used, then run the invoice tests.\n');
  });

  it('shows what plain eviction loses on the demo session', async () => {
    const measure = await measureCompact(readRecordedConversation('examples/long-coding-session.json'), { counter, provider: 'openai', model: 'gpt-4o', budgetTokens: 16_000 });
    expect(measure!.visiblePaths.length / measure!.paths.length).toBeLessThan(0.5);
  });
});
