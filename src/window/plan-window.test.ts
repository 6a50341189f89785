import { describe, expect, it } from 'vitest';
import type { ModelMessage } from '../message/message.js';
import { bytesPerTokenCounter as counter } from '../tokens/bytes-per-token-counter.js';
import { planWindow } from './plan-window.js';
import { answer, user } from '../testing/message-builders.js';

const turns = (count: number) =>
  Array.from({ length: count }, (_, i) => [
    user(`question ${i} `.repeat(10)),
    answer(`answer ${i} `.repeat(10)),
  ]).flat();

describe('planWindow', () => {
  it('evicts the oldest exchanges first and reports the cutoff', () => {
    const messages = turns(5);
    const each = planWindow({ messages: turns(1), counter, budgetTokens: 0 });
    const budgetTokens = each.pinnedTokens + (each.exchanges[0]?.tokens ?? 0) * 2 + 5;
    const plan = planWindow({ messages, counter, budgetTokens, policy: { name: 'budget' } });
    expect(plan.exchanges.map((e) => e.inWindow)).toEqual([false, false, false, true, true]);
    expect(plan.cutoffMessage).toBe(6);
    expect(plan.evictedExchanges).toBe(3);
    expect(plan.messages).toEqual(messages.slice(6));
    expect(plan.overBudget).toBe(false);
  });

  it('uses 100,000 tokens by default and 0 disables windowing', () => {
    expect(planWindow({ messages: turns(2), counter }).budgetTokens).toBe(100_000);
    const disabled = planWindow({ messages: turns(50), counter, budgetTokens: 0 });
    expect(disabled.evictedExchanges).toBe(0);
    expect(disabled.cutoffMessage).toBe(0);
  });

  it('has no cutoff when there is nothing after the pinned content', () => {
    expect(planWindow({ messages: [], counter }).cutoffMessage).toBeNull();
    expect(
      planWindow({ messages: turns(1), counter, pinFirstExchange: true }).cutoffMessage,
    ).toBeNull();
  });

  it('counts the system prompt and tools as pinned', () => {
    const bare = planWindow({ messages: turns(1), counter });
    const withPreamble = planWindow({
      messages: turns(1),
      counter,
      system: 'You are a careful engineer.',
      tools: [{ name: 'read_file', description: 'Read a file', inputSchema: { type: 'object' } }],
    });
    expect(withPreamble.pinnedTokens).toBeGreaterThan(bare.pinnedTokens);
    expect(withPreamble.totalTokens - bare.totalTokens).toBe(
      withPreamble.pinnedTokens - bare.pinnedTokens,
    );
  });

  it('rejects an orphaned tool result, naming message and part', () => {
    const messages: ModelMessage[] = [
      user('a'),
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'ghost',
            toolName: 'f',
            output: { type: 'text', value: '' },
          },
        ],
      },
    ];
    expect(() => planWindow({ messages, counter })).toThrow(
      expect.objectContaining({
        code: 'ORPHANED_TOOL_RESULT',
        message: expect.stringContaining('messages[1].content[0]'),
      }),
    );
  });

  it('rejects a bad budget', () => {
    expect(() => planWindow({ messages: [], counter, budgetTokens: -1 })).toThrow(
      expect.objectContaining({ code: 'BUDGET_INVALID' }),
    );
  });

  it('does not mutate its input', () => {
    const messages = Object.freeze(turns(3).map((message) => Object.freeze(message)));
    expect(() => planWindow({ messages, counter, budgetTokens: 10 })).not.toThrow();
  });
});
