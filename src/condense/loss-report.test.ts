import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectExchanges } from '../exchange/detect-exchanges.js';
import type { ModelMessage, ToolResultOutput } from '../message/message.js';
import { readRecordedConversation } from '../testing/compact-visibility.js';
import { digestSummarizer } from './digest-summarizer.js';
import { describeLoss, LOSS_KINDS, type LossItem, lossReport, MAX_LOSS_ITEMS } from './loss-report.js';

let callId = 0;
/** A call id without digits, so that no number the user wrote is found in it. */
const letters = (count: number) => count.toString(26).replace(/./g, (digit) => String.fromCharCode(97 + Number.parseInt(digit, 26)));
/** One exchange: a request, each step a tool call answered by its result, then the answer. */
function exchange(request: string, steps: readonly { name: string; input: unknown; output?: ToolResultOutput }[] = [], answer = 'Done.'): ModelMessage[] {
  const ids = steps.map(() => `call-${letters(callId++)}`);
  return [
    { role: 'user', content: request },
    ...(steps.length === 0
      ? []
      : [
          { role: 'assistant' as const, content: steps.map((step, index) => ({ type: 'tool-call' as const, toolCallId: ids[index]!, toolName: step.name, input: step.input })) },
          { role: 'tool' as const, content: steps.map((step, index) => ({ type: 'tool-result' as const, toolCallId: ids[index]!, toolName: step.name, output: step.output ?? { type: 'text' as const, value: 'ok' } })) },
        ]),
    { role: 'assistant', content: answer },
  ];
}

const texts = (items: readonly LossItem[], kind: LossItem['kind']) => items.filter((item) => item.kind === kind).map((item) => item.text);

describe('lossReport: what it lists', () => {
  const evicted = [
    {
      exchange: 3,
      messages: exchange(
        'Fix the retry in `fetchWithRetry` (see src/net/retry.ts). Never retry more than 5 times. Docs: https://example.dev/retry.',
        [
          { name: 'Read', input: { file_path: 'src/net/retry.ts' } },
          { name: 'Bash', input: { command: 'npm test' }, output: { type: 'error-text', value: 'FAIL src/net/retry.test.ts\nTypeError: backoffMs is not a function' } },
        ],
        'The bug is in computeBackoff: it used 1500 as the base.',
      ),
    },
  ];

  it('lists constraints, errors, paths, identifiers, URLs and numbers of what left, each once, by kind', () => {
    const items = lossReport({ evicted, window: [] });
    expect(texts(items, 'constraint')).toEqual(['Never retry more than 5 times.']);
    expect(texts(items, 'error')).toEqual(['FAIL src/net/retry.test.ts']);
    expect(texts(items, 'path')).toEqual(['src/net/retry.ts']);
    expect(texts(items, 'identifier')).toEqual(['fetchWithRetry', 'computeBackoff']);
    expect(texts(items, 'url')).toEqual(['https://example.dev/retry']);
    expect(items.every((item) => item.exchange === 3)).toBe(true);
    const order = items.map((item) => LOSS_KINDS.indexOf(item.kind));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it('leaves out what the summary or the window still holds, spaces aside', () => {
    const summary = 'Files (last action):\n- src/net/retry.ts: read\nConstraints (verbatim):\n- Never retry more than   5 times.';
    const window: ModelMessage[] = [{ role: 'user', content: 'Now rename `fetchWithRetry`.' }];
    const items = lossReport({ evicted, summary, window });
    expect(texts(items, 'path')).toEqual([]);
    expect(texts(items, 'constraint')).toEqual([]);
    expect(texts(items, 'identifier')).toEqual(['computeBackoff']);
  });

  it('lists what the summary it replaces held and the new one lets go, at the number given with it', () => {
    const previous = 'Earlier in this conversation (a digest of exchanges no longer in the context):\nRequests:\n- Ship it. Never push to main.\nFiles (last action):\n- src/a.ts: edited\n- src/b.ts: read\nErrors:\n- [unresolved] `npm test`: FAIL src/a.test.ts';
    const items = lossReport({ evicted: [], replacedSummary: { exchange: 1, text: previous }, summary: 'Files (last action):\n- src/a.ts: edited', window: [] });
    expect(items).toEqual([
      { kind: 'constraint', text: 'Never push to main.', exchange: 1 },
      { kind: 'error', text: 'FAIL src/a.test.ts', exchange: 1 },
      { kind: 'path', text: 'src/b.ts', exchange: 1 },
    ]);
  });

  it('reads numbers from the user\'s text only, and neither the words of paths nor of URLs as symbols', () => {
    const items = lossReport({ evicted: [{ exchange: 1, messages: exchange('Set the limit to 120 and the timeout to 30s in lib/my_config.py, like http://x.dev/a_b.', [], 'Used 4096 bytes.') }], window: [] });
    expect(texts(items, 'number')).toEqual(['120', '30s']);
    expect(texts(items, 'identifier')).toEqual([]);
    expect(texts(items, 'path')).toEqual(['lib/my_config.py']);
  });

  it('keeps to its cap, the first kinds first, and says it in one short line', () => {
    const many = [{ exchange: 0, messages: exchange(Array.from({ length: 80 }, (_, index) => `src/f${letters(index)}.ts`).join(' ')) }];
    const items = lossReport({ evicted: many, window: [] });
    expect(items).toHaveLength(MAX_LOSS_ITEMS);
    expect(lossReport({ evicted: many, window: [] }, 3)).toEqual(items.slice(0, 3));
    expect(describeLoss(items)).toMatch(/^dropped 40: path src\/fa\.ts, path src\/fb\.ts, .*, …$/);
    expect(describeLoss(items).length).toBeLessThanOrEqual(165);
    expect(describeLoss([])).toBe('nothing dropped');
  });
});

/** A token no extraction splits: a path, a symbol, a URL. */
const planted = fc.oneof(
  fc.tuple(fc.stringMatching(/^[a-z]{2,8}$/), fc.stringMatching(/^[a-z]{2,8}$/)).map(([dir, name]) => ({ kind: 'path' as const, text: `${dir}/${name}.ts` })),
  fc.tuple(fc.stringMatching(/^[a-z]{2,6}$/), fc.stringMatching(/^[A-Z][a-z]{2,6}$/)).map(([head, tail]) => ({ kind: 'identifier' as const, text: `${head}${tail}` })),
  fc.stringMatching(/^[a-z]{3,10}$/).map((host) => ({ kind: 'url' as const, text: `https://${host}.dev/page` })),
);
const prose = fc.array(fc.constantFrom('Please', 'look', 'at', 'the', 'code', 'and', 'then', 'fix', 'it', 'now', 'must', '42', 'run'), { maxLength: 12 }).map((words) => words.join(' '));
const arbitraryExchange = fc.tuple(prose, fc.option(planted, { nil: undefined }), prose, fc.option(planted, { nil: undefined })).map(([before, plant, after, inAnswer]) =>
  exchange(`${before} ${plant?.text ?? ''} ${after}.`, plant?.kind === 'path' ? [{ name: 'Read', input: { file_path: plant.text } }] : [], `Done ${inAnswer?.text ?? ''}.`));

describe('lossReport: properties', () => {
  it('never lists an item whose text the summary or the window holds', () => {
    fc.assert(
      fc.property(fc.array(arbitraryExchange, { minLength: 1, maxLength: 5 }), fc.array(arbitraryExchange, { maxLength: 3 }), prose, fc.array(planted, { maxLength: 3 }), (evictedExchanges, windowExchanges, summary, before) => {
        const evicted = evictedExchanges.map((messages, exchange) => ({ exchange, messages }));
        const window = windowExchanges.flat();
        const replacedSummary = { exchange: -1, text: `Decisions:\n- ${before.map((each) => each.text).join(' and ')}` };
        const first = lossReport({ evicted, summary, window, replacedSummary });
        // Deterministic, and each listed text is absent from what the model still sees.
        expect(lossReport({ evicted, summary, window, replacedSummary })).toEqual(first);
        const seen = JSON.stringify(window) + summary;
        for (const item of first) expect(seen.includes(item.text)).toBe(false);
        // Whatever is listed, put back into the summary, is no longer listed.
        const restored = lossReport({ evicted, summary: `${summary}\n${first.map((item) => item.text).join('\n')}`, window, replacedSummary });
        expect(restored).toEqual([]);
      }),
    );
  });

  it('lists a path planted in an evicted exchange and in neither the summary nor the window', () => {
    fc.assert(
      fc.property(fc.array(arbitraryExchange, { maxLength: 4 }), fc.nat(4), fc.stringMatching(/^[a-z]{3,8}$/), prose, (others, at, name, summary) => {
        const path = `planted/${name}-${at}.rs`;
        const messages = [...others];
        messages.splice(Math.min(at, messages.length), 0, exchange(`Check ${path} please.`));
        const evicted = messages.map((each, exchange) => ({ exchange, messages: each }));
        const items = lossReport({ evicted, summary, window: [] });
        expect(items).toContainEqual({ kind: 'path', text: path, exchange: Math.min(at, others.length) });
        expect(lossReport({ evicted, summary: `${summary} ${path}`, window: [] }).some((item) => item.text === path)).toBe(false);
      }),
    );
  });
});

describe('lossReport on recorded sessions', () => {
  const sessions = [
    'src/sources/__fixtures__/claude-code-session.jsonl',
    'src/sources/__fixtures__/claude-code-2.1-parallel-session.jsonl',
    'src/sources/__fixtures__/codex-rollout.jsonl',
  ];
  it.each(sessions)('lists less with the digest than with plain eviction, nothing the digest holds, in %s', async (file) => {
    const { messages } = readRecordedConversation(file);
    const exchanges = detectExchanges(messages);
    const latest = exchanges.at(-1)!;
    const evicted = exchanges.slice(0, -1).map((bounds) => ({ exchange: bounds.firstMessage, messages: messages.slice(bounds.firstMessage, bounds.lastMessage + 1) }));
    const window = messages.slice(latest.firstMessage);
    const every = Number.POSITIVE_INFINITY;
    const plain = lossReport({ evicted, window }, every);
    const countTokens = (text: string) => Math.ceil(text.length / 4);
    const { text: summary } = await digestSummarizer().summarize({ exchanges: evicted.map((each) => each.messages), maxTokens: 2_000, countTokens });
    const withDigest = lossReport({ evicted, summary, window }, every);
    expect(plain.some((item) => item.kind === 'path')).toBe(true);
    expect(withDigest.length).toBeLessThan(plain.length);
    for (const item of withDigest) expect(summary.includes(item.text)).toBe(false);
    // The digest keeps the files the tools touched: none of them is reported lost.
    const touched = texts(plain, 'path').filter((path) => summary.includes(`- ${path}: `));
    expect(touched.length).toBeGreaterThan(0);
    expect(texts(withDigest, 'path').filter((path) => touched.includes(path))).toEqual([]);
  });
});
