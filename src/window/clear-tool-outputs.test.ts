import { describe, expect, it } from 'vitest';
import { checkPairing } from '../exchange/check-pairing.js';
import type { ModelMessage } from '../message/message.js';
import { bytesPerTokenCounter } from '../tokens/bytes-per-token-counter.js';
import { planWindow } from './plan-window.js';
import type { ClearToolOutputsPolicy } from './window-policy.js';

const big = (label: string) => `${label}: ${'line of a large file\n'.repeat(400)}`;
const call = (id: string, toolName = 'read_file'): ModelMessage => ({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName, input: { path: `${id}.ts` } }] });
const output = (id: string, toolName = 'read_file'): ModelMessage => ({ role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName, output: { type: 'text', value: big(id) } }] });

/** One exchange that reads four large files, then answers: far over a small budget on its own. */
const messages: ModelMessage[] = [
  { role: 'user', content: 'earlier question' },
  { role: 'assistant', content: 'earlier answer' },
  { role: 'user', content: 'Read the four modules and tell me where the bug is.' },
  call('a'), output('a'),
  call('b', 'run_tests'), output('b', 'run_tests'),
  call('c'), output('c'),
  call('d'), output('d'),
  { role: 'assistant', content: 'The bug is in d.ts.' },
];

const plan = (policy: Omit<ClearToolOutputsPolicy, 'name'>, budgetTokens = 4_000) =>
  planWindow({ messages, counter: bytesPerTokenCounter, budgetTokens, policy: { name: 'clear-tool-outputs', ...policy } });

describe('BEHAVIOUR 16: the clear-tool-outputs policy', () => {
  it('clears the oldest outputs of an exchange over budget on its own, keeping every call and id', () => {
    const cleared = plan({ keep: 1, minimumTokens: 0 });
    expect(cleared.evictedExchanges).toBe(1);
    expect(cleared.clearedToolOutputs.map((entry) => entry.toolCallId)).toEqual(['a', 'b', 'c']);
    expect(cleared.overBudget).toBe(false);
    const text = JSON.stringify(cleared.messages);
    expect(text).toMatch(/\[output cleared: \d+ tokens, stored as message 4; read_history reads it back\]/);
    expect(text).toMatch(/\[output cleared: \d+ tokens, stored as message 6; read_history reads it back\]/);
    expect(text).toMatch(/\[output cleared: \d+ tokens, stored as message 8; read_history reads it back\]/);
    expect(text).toContain('d: line of a large file');
    expect(text).not.toContain('c: line of a large file');
    expect(checkPairing(cleared.messages)).toEqual([]);
    expect(cleared.messages.filter((message) => message.role === 'assistant')).toHaveLength(5);
    expect(cleared.totalTokens).toBe(bytesPerTokenCounter.count({ provider: 'openai', model: cleared.model, request: { messages: cleared.messages } }).tokens);
  });

  it('keeps the newest K outputs and the outputs of excluded tools', () => {
    const cleared = plan({ keep: 2, excludeTools: ['run_tests'], minimumTokens: 0 });
    expect(cleared.clearedToolOutputs.map((entry) => entry.toolCallId)).toEqual(['a']);
    expect(cleared.overBudget).toBe(true);
  });

  it('clears at least the minimum once it clears at all', () => {
    const needed = plan({ keep: 0, minimumTokens: 0 }, 6_000).clearedToolOutputs.length;
    const withMinimum = plan({ keep: 0, minimumTokens: 5_000 }, 6_000).clearedToolOutputs.length;
    expect(withMinimum).toBeGreaterThan(needed);
  });

  it('leaves a window within budget as it is', () => {
    const untouched = plan({ keep: 0, minimumTokens: 0 }, 100_000);
    expect(untouched.clearedToolOutputs).toEqual([]);
    expect(untouched.messages).toEqual(messages);
  });
});
