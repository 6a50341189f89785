import { describe, expect, it } from 'vitest';
import type { ModelMessage } from '../message/message.js';
import type { Complete, CompleteOptions } from './complete.js';
import { DEFAULT_CONDENSING_PROMPT, llmSummarizer } from './llm-summarizer.js';

const exchange = (i: number): ModelMessage[] => [
  { role: 'user', content: `Step ${i}: fix the failing payments tests in src/${i}.ts.` },
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: `call_${i}`, toolName: 'read_file', input: { path: `src/${i}.ts` } }] },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: `call_${i}`, toolName: 'read_file', output: { type: 'text', value: 'export const amount = 100;\n'.repeat(20) } }] },
  { role: 'assistant', content: `src/${i}.ts looks right.` },
];
const countTokens = (text: string) => Math.ceil(text.length / 4);

/** A `complete` that records its calls and answers each with the next of `answers`. */
function recordingComplete(answers: { text: string; truncated?: boolean }[]) {
  const calls: { system: string; user: string; options: CompleteOptions }[] = [];
  const complete: Complete = (system, user, options) => {
    calls.push({ system, user, options });
    const answer = answers.shift() ?? { text: 'summary' };
    return Promise.resolve({ text: answer.text, truncated: answer.truncated ?? false, inputTokens: countTokens(system + user), outputTokens: countTokens(answer.text) });
  };
  return { complete, calls };
}

describe('the LLM summarizer over a plain complete function', () => {
  it('asks once with the prompt, the transcript, the summary\'s room and the signal, and answers the trimmed text and its cost', async () => {
    const { complete, calls } = recordingComplete([{ text: '  Fixed amounts in integer cents.\n' }]);
    const signal = new AbortController().signal;
    const result = await llmSummarizer({ complete, provider: 'openai', model: 'gpt-4o-mini' }).summarize({ exchanges: [exchange(0), exchange(1)], maxTokens: 300, countTokens, signal, previousSummary: 'Earlier: set up the repo.' });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.system).toBe(DEFAULT_CONDENSING_PROMPT);
    expect(calls[0]?.user).toContain('Summary so far:\nEarlier: set up the repo.');
    expect(calls[0]?.user).toContain('read_file({"path":"src/1.ts"})');
    expect(calls[0]?.options).toEqual({ maxTokens: 300, signal });
    expect(result).toEqual({ text: 'Fixed amounts in integer cents.', finishReason: 'stop', cost: { inputTokens: countTokens(DEFAULT_CONDENSING_PROMPT + (calls[0]?.user ?? '')), outputTokens: 9 } });
  });

  it('says `length` when any call was cut off, and sums the cost of the parts and the merge', async () => {
    const { complete, calls } = recordingComplete([{ text: 'part one' }, { text: 'part two', truncated: true }, { text: 'part three' }]);
    const result = await llmSummarizer({ complete, model: 'any-model', maxInputTokens: 300 }).summarize({ exchanges: [0, 1, 2, 3].map(exchange), maxTokens: 100, countTokens });
    expect(calls.length).toBeGreaterThan(2);
    expect(calls.at(-1)?.user).toContain('Part 1:\npart one');
    expect(result.finishReason).toBe('length');
    const sent = calls.reduce((sum, call) => sum + countTokens(call.system + call.user), 0);
    expect(result.cost.inputTokens).toBe(sent);
  });

  it('throws a failure again with the key its text echoes taken out', async () => {
    const complete: Complete = () => Promise.reject(new Error('401: Incorrect API key provided: sk-proj-abcdefghijklmnop.'));
    const summarize = llmSummarizer({ complete, model: 'gpt-4o-mini' }).summarize({ exchanges: [exchange(0)], maxTokens: 100, countTokens });
    await expect(summarize).rejects.toThrow('401: Incorrect API key provided: sk-proj-[redacted].');
  });
});
