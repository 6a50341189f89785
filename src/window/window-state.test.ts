import { describe, expect, it } from 'vitest';
import type { Message, ModelMessage } from '../message/message.js';
import { bytesPerTokenCounter } from '../tokens/bytes-per-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { planWindow } from './plan-window.js';
import { WindowState } from './window-state.js';

/** The real bytes/4 counter, observed: how many messages each step asks it to count. */
function observedCounter() {
  const seen = { messages: 0 };
  const counter: TokenCounter = {
    count: (input) => bytesPerTokenCounter.count(input),
    countPreamble: (input) => bytesPerTokenCounter.countPreamble(input),
    countMessage: (input) => {
      seen.messages++;
      return bytesPerTokenCounter.countMessage(input);
    },
  };
  return { counter, seen };
}

const turn = (i: number): ModelMessage[] => [
  { role: 'user', content: `request ${i} `.repeat(8) },
  {
    role: 'assistant',
    content: [
      { type: 'tool-call', toolCallId: `c${i}`, toolName: 'read_file', input: { path: `${i}.ts` } },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: `c${i}`,
        toolName: 'read_file',
        output: { type: 'text', value: 'x'.repeat(200) },
      },
    ],
  },
  { role: 'assistant', content: `done ${i}` },
];

describe('WindowState', () => {
  it('counts only what is new after a turn, however long the history', () => {
    const { counter, seen } = observedCounter();
    const state = new WindowState({ counter, budgetTokens: 2_000, policy: { name: 'budget' } });
    for (let i = 0; i < 2_000; i++) state.append(turn(i)).prune();
    const before = seen.messages;
    const result = state.append(turn(2_000)).prune();
    // Four new messages, plus the synthetic result of the call while it was unanswered.
    expect(seen.messages - before).toBe(5);
    expect(result.evicted.length).toBeGreaterThanOrEqual(1);
    expect(result.totalTokens).toBeLessThanOrEqual(2_000);
  });

  it('reports what each prune evicted and readmitted', () => {
    const state = new WindowState({ counter: bytesPerTokenCounter, budgetTokens: 0 });
    state.append([...turn(0), ...turn(1), ...turn(2)]);
    expect(state.prune()).toMatchObject({ evicted: [], readmitted: [] });
    state.setBudgetTokens(1);
    expect(state.prune()).toMatchObject({ evicted: [0, 1], overBudget: true });
    state.setBudgetTokens(0);
    expect(state.prune()).toMatchObject({ readmitted: [1, 0], overBudget: false });
  });

  it('rejects the same bad input as planWindow, with the same code', () => {
    const bad: Message[] = [
      { role: 'user', content: 'a' },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'nope',
            toolName: 'f',
            output: { type: 'text', value: '' },
          },
        ],
      },
    ];
    const counter = bytesPerTokenCounter;
    expect(() => new WindowState({ counter }).append(bad)).toThrow(
      expect.objectContaining({ code: 'ORPHANED_TOOL_RESULT' }),
    );
    expect(() => planWindow({ messages: bad, counter })).toThrow(
      expect.objectContaining({ code: 'ORPHANED_TOOL_RESULT' }),
    );
    expect(() =>
      new WindowState({ counter }).append([{ role: 'event', kind: 'rewind', label: 'x' }]),
    ).toThrow(expect.objectContaining({ code: 'UNKNOWN_MARK' }));
  });

  it('keeps the system prompt and tools through a clear', () => {
    const counter = bytesPerTokenCounter;
    const options = {
      counter,
      system: 'You are an agent.',
      tools: [{ name: 'f', inputSchema: {} }],
    };
    const state = new WindowState(options).append([
      ...turn(0),
      { role: 'event', kind: 'clear' },
      ...turn(1),
    ]);
    state.prune();
    expect(state.plan()).toEqual(planWindow({ ...options, messages: turn(1) }));
  });
});
