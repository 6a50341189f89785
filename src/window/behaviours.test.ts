/**
 * One test per behaviour of BEHAVIOURS.md that the budget window is responsible for. Each is a
 * bug that users of a peer system hit; each test fails if the bug comes back.
 */
import { describe, expect, it } from 'vitest';
import { checkPairing } from '../exchange/check-pairing.js';
import { applyEvents } from '../message/apply-events.js';
import type { Message, ModelMessage } from '../message/message.js';
import { bytesPerTokenCounter as counter } from '../tokens/bytes-per-token-counter.js';
import { planWindow } from './plan-window.js';
import { WindowState } from './window-state.js';
import { answer, calls, result, results, user } from '../testing/message-builders.js';

/** Every budget from nothing to everything, so that every possible cut is tried. */
function everyCut(
  messages: readonly Message[],
  check: (plan: ReturnType<typeof planWindow>) => void,
) {
  const full = planWindow({ messages, counter, budgetTokens: 0 });
  for (let budgetTokens = 1; budgetTokens <= full.totalTokens + 1; budgetTokens += 7) {
    check(planWindow({ messages, counter, budgetTokens }));
  }
}

describe('BEHAVIOUR 1: no orphaned tool result after any cut', () => {
  it('holds for parallel calls, text with results in one message, and approval steps', () => {
    const messages: ModelMessage[] = [
      user('Read both files'),
      calls('p1', 'p2', 'p3'),
      results('p2', 'p3', 'p1'),
      answer('Read.'),
      user('Edit them, ask me first'),
      calls('e1'),
      // Anthropic style: the result and the user's approval travel in one user message.
      { role: 'user', content: [result('e1'), { type: 'text', text: 'Approved, go ahead.' }] },
      calls('e2', 'e3'),
      { role: 'user', content: [result('e2'), result('e3')] },
      answer('Edited.'),
      user('Thanks'),
      answer('Welcome.'),
    ];
    everyCut(messages, (plan) => {
      expect(checkPairing(plan.messages)).toEqual([]);
    });
  });
});

describe('BEHAVIOUR 2: no orphaned tool call: an unanswered call gets an explicit aborted result', () => {
  it('answers the dangling call with a stable synthetic result, right after its call', () => {
    const messages = [
      user('Run the tests'),
      calls('t1', 't2'),
      results('t1'),
      user('Stop, do Y instead'),
      answer('OK'),
    ];
    const plan = planWindow({ messages, counter, budgetTokens: 0 });
    expect(plan.messages[2]).toEqual(results('t1'));
    expect(plan.messages[3]).toEqual({
      role: 'tool',
      id: 'aborted:t2',
      content: [
        {
          type: 'tool-result',
          toolCallId: 't2',
          toolName: 'read_file',
          output: { type: 'error-text', value: 'aborted' },
        },
      ],
      providerOptions: { 'sliding-context': { synthetic: true } },
    });
    expect(plan.syntheticResults).toEqual([
      { toolCallId: 't2', toolName: 'read_file', exchange: 0 },
    ]);
    expect(checkPairing(plan.messages)).toEqual([]);
    // The synthetic result is counted: the exchange's tokens include it.
    expect(plan.exchanges[0]?.tokens).toBe(
      [0, 1, 2].reduce(
        (sum, i) =>
          sum +
          counter.countMessage({
            provider: 'openai',
            model: 'gpt-4o',
            message: messages[i] as ModelMessage,
          }).tokens,
        0,
      ) +
      counter.countMessage({
        provider: 'openai',
        model: 'gpt-4o',
        message: plan.messages[3] as ModelMessage,
      }).tokens,
    );
  });

  it('never sends a call dangling at any cut, including the current exchange mid-turn', () => {
    const messages = [user('a'), calls('x1'), user('b'), calls('x2', 'x3'), results('x3')];
    everyCut(messages, (plan) => {
      expect(checkPairing(plan.messages)).toEqual([]);
    });
  });
});

describe('BEHAVIOUR 3: the current exchange is never evicted', () => {
  it('keeps the live user message and this turn\'s tool traffic, even far over budget', () => {
    const messages = [
      user('old'),
      answer('old answer'),
      user('Read the whole repository'),
      calls('r1', 'r2'),
      results('r1', 'r2'),
      calls('r3'),
    ];
    const plan = planWindow({ messages, counter, budgetTokens: 1 });
    expect(plan.exchanges.map((exchange) => exchange.inWindow)).toEqual([false, true]);
    expect(plan.messages.slice(0, 4)).toEqual(messages.slice(2));
    expect(plan.overBudget).toBe(true);
  });
});

describe('BEHAVIOUR 4: the window never starts with an assistant or tool message', () => {
  it('starts with a user message after the system messages at every cut, reasoning-only replies included', () => {
    const messages: ModelMessage[] = [
      { role: 'system', content: 'Be brief.' },
      user('a'),
      { role: 'assistant', content: [{ type: 'reasoning', text: 'Thinking about a' }] },
      answer('A'),
      user('b'),
      { role: 'assistant', content: [{ type: 'reasoning', text: 'Thinking about b' }] },
      calls('b1'),
      results('b1'),
      answer('B'),
      user('c'),
      answer('C'),
    ];
    everyCut(messages, (plan) => {
      const first = plan.messages.find((message) => message.role !== 'system');
      expect(first?.role).toBe('user');
    });
  });

  it('rejects a conversation whose first non-system message is not from the user, naming it', () => {
    expect(() =>
      planWindow({
        messages: [{ role: 'system', content: 's' }, answer('Hello!'), user('hi')],
        counter,
      }),
    ).toThrow(
      expect.objectContaining({
        code: 'INVALID_CONVERSATION',
        message: expect.stringContaining('messages[1].role'),
      }),
    );
  });
});

describe('BEHAVIOUR 12: clear resets the window, rewind removes the rewound exchanges from the count', () => {
  const before: Message[] = [user('one'), answer('1'), user('two'), answer('2')];

  it('clear resets the window and its count', () => {
    const history: Message[] = [
      ...before,
      { role: 'event', kind: 'clear' },
      user('three'),
      answer('3'),
    ];
    const plan = planWindow({ messages: history, counter });
    const fresh = planWindow({ messages: [user('three'), answer('3')], counter });
    expect(plan.totalTokens).toBe(fresh.totalTokens);
    expect(plan.exchanges).toHaveLength(1);
  });

  it('rewind removes the rewound exchanges from the count, incrementally too', () => {
    const history: Message[] = [
      user('one'),
      answer('1'),
      { role: 'event', kind: 'mark', label: 'm' },
      user('two — a long detour '.repeat(30)),
      answer('2'),
      { role: 'event', kind: 'rewind', label: 'm' },
    ];
    const plan = planWindow({ messages: history, counter });
    expect(plan.totalTokens).toBe(
      planWindow({ messages: [user('one'), answer('1')], counter }).totalTokens,
    );
    const state = new WindowState({ counter });
    state.append(history.slice(0, 5)).prune();
    const grown = state.totalTokens;
    state.append(history.slice(5)).prune();
    expect(state.totalTokens).toBeLessThan(grown);
    const previousCutoff = planWindow({ messages: history.slice(0, 5), counter }).cutoffMessage;
    expect(state.plan()).toEqual(planWindow({ messages: history, counter, previousCutoff, previousMessageCount: 5 }));
    expect(state.plan().messages).toEqual(plan.messages);
  });

  it('per-exchange counts always add up to the total', () => {
    const plan = planWindow({
      messages: applyEvents([...before, user('three'), calls('z'), results('z')]),
      counter,
      system: 'sys',
    });
    const sum = plan.exchanges.filter((e) => e.inWindow).reduce((total, e) => total + e.tokens, 0);
    expect(plan.totalTokens).toBe(plan.pinnedTokens + sum);
  });
});

describe('BEHAVIOUR 14: pinned content survives every eviction', () => {
  it('keeps the system prompt, tools, leading system messages and the pinned first task at every cut', () => {
    const messages: ModelMessage[] = [
      { role: 'system', content: 'Rule: never push to main.' },
      user('TASK: migrate the service to Kysely'),
      answer('Plan: …'),
      ...Array.from({ length: 8 }, (_, i) => [
        user(`step ${i} `.repeat(20)),
        answer(`done ${i}`),
      ]).flat(),
    ];
    const tools = [{ name: 'read_file', inputSchema: { type: 'object' } }];
    const full = planWindow({
      messages,
      counter,
      budgetTokens: 0,
      system: 'You are an agent.',
      tools,
      pinFirstExchange: true,
    });
    for (let budgetTokens = 1; budgetTokens < full.totalTokens; budgetTokens += 13) {
      const plan = planWindow({
        messages,
        counter,
        budgetTokens,
        system: 'You are an agent.',
        tools,
        pinFirstExchange: true,
      });
      expect(plan.messages[0]).toEqual(messages[0]);
      expect(plan.messages[1]).toEqual(messages[1]);
      expect(plan.exchanges[0]).toMatchObject({ pinned: true, inWindow: true });
      expect(plan.pinnedTokens).toBe(full.pinnedTokens);
    }
  });
});

describe('BEHAVIOUR 16: a single exchange larger than the budget', () => {
  it('stays, and the plan says the request is over budget and by how much', () => {
    const messages = [
      user('small'),
      answer('ok'),
      user('Read the giant file'),
      calls('g'),
      results('g'),
      answer('It is big.'),
    ];
    const plan = planWindow({ messages, counter, budgetTokens: 50 });
    expect(plan.exchanges.map((e) => e.inWindow)).toEqual([false, true]);
    expect(plan.overBudget).toBe(true);
    expect(plan.overByTokens).toBe(plan.totalTokens - 50);
    expect(plan.overByTokens).toBeGreaterThan(0);
    expect(plan.messages).toHaveLength(4);
  });
});
