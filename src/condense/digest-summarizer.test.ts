import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ModelMessage } from '../message/message.js';
import { DIGEST_HEADING, digestExchange, digestSummarizer } from './digest-summarizer.js';

const countTokens = (text: string) => Math.ceil(text.length / 4);

const exchange = (index: number): ModelMessage[] => [
  { role: 'user', content: `Fix the failing test in module ${index}, then run the suite again.` },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Reading both.' },
      { type: 'tool-call', toolCallId: `r${index}`, toolName: 'read_file', input: { path: `src/module-${index}.ts` } },
      { type: 'tool-call', toolCallId: `c${index}`, toolName: 'run_command', input: { command: 'npm test -- --run' } },
    ],
  },
  {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: `r${index}`, toolName: 'read_file', output: { type: 'text', value: 'export const x = 1;' } },
      { type: 'tool-result', toolCallId: `c${index}`, toolName: 'run_command', output: { type: 'error-text', value: 'FAIL src/module.test.ts\nExpected 2, received 1' } },
    ],
  },
  { role: 'assistant', content: `Module ${index} now returns 2; the suite passes.` },
];

describe('digestSummarizer', () => {
  it('records the request, the tools with their paths and commands, files, errors and the final answer', () => {
    expect(digestExchange(exchange(7))).toBe(
      '- asked "Fix the failing test in module 7, then run the suite again." · tools: read_file src/module-7.ts, run_command `npm test -- --run` · files: src/module-7.ts · errors: run_command: FAIL src/module.test.ts Expected 2, received 1 · answered "Module 7 now returns 2; the suite passes."',
    );
  });

  it('is deterministic and rolling: a second call keeps the first digest and adds the new exchanges', async () => {
    const summarizer = digestSummarizer();
    const first = await summarizer.summarize({ exchanges: [exchange(1)], maxTokens: 2000, countTokens });
    expect(await summarizer.summarize({ exchanges: [exchange(1)], maxTokens: 2000, countTokens })).toEqual(first);
    expect(first).toMatchObject({ finishReason: 'stop', cost: { inputTokens: 0, outputTokens: 0, usd: 0 } });
    const second = await summarizer.summarize({ exchanges: [exchange(2)], previousSummary: first.text, maxTokens: 2000, countTokens });
    expect(second.text.split('\n')).toEqual([DIGEST_HEADING, digestExchange(exchange(1)), digestExchange(exchange(2))]);
  });

  it('ages the oldest lines first, then folds them into a count, and stays within maxTokens', async () => {
    const summarizer = digestSummarizer();
    let text: string | undefined;
    for (let index = 0; index < 40; index++) {
      text = (await summarizer.summarize({ exchanges: [exchange(index)], previousSummary: text, maxTokens: 600, countTokens })).text;
      expect(countTokens(text)).toBeLessThanOrEqual(600);
    }
    const lines = (text ?? '').split('\n');
    expect(lines[1]).toMatch(/^- \(\d+ earlier exchanges, condensed\)$/);
    // The newest exchange is still whole; older ones were clipped.
    expect(lines.at(-1)).toBe(digestExchange(exchange(39)));
    expect((lines[2] ?? '').length).toBeLessThan(digestExchange(exchange(0)).length);
    const folded = Number(/\((\d+) earlier/.exec(lines[1] ?? '')?.[1]);
    expect(folded + lines.length - 2).toBe(40);
  });

  it('never exceeds maxTokens when there is room for the heading and the count', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 12 }), fc.integer({ min: 60, max: 800 }), async (batches, maxTokens) => {
        const summarizer = digestSummarizer();
        let text: string | undefined;
        let total = 0;
        for (const size of batches) {
          const exchanges = Array.from({ length: size }, (_, offset) => exchange(total + offset));
          total += size;
          text = (await summarizer.summarize({ exchanges, previousSummary: text, maxTokens, countTokens })).text;
          expect(countTokens(text)).toBeLessThanOrEqual(maxTokens);
        }
        // Every exchange is accounted for, as a line or in the count.
        const lines = (text ?? '').split('\n').slice(1);
        const folded = Number(/\((\d+) earlier/.exec(lines[0] ?? '')?.[1] ?? 0);
        expect(folded + lines.filter((line) => !line.includes('earlier exchange')).length).toBe(total);
      }),
      { numRuns: 100 },
    );
  });
});
