import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkPairing } from '../exchange/check-pairing.js';
import { applyEvents } from '../message/apply-events.js';
import type { Message, ModelMessage, ToolDefinition } from '../message/message.js';
import { conversationArbitrary } from '../testing/conversation-arbitrary.js';
import { bytesPerTokenCounter } from '../tokens/bytes-per-token-counter.js';
import { planWindow } from './plan-window.js';
import type { WindowPlan } from './window-plan.js';
import { WindowState } from './window-state.js';

const RUNS = 1_000;
const counter = bytesPerTokenCounter;

/** A conversation, a budget drawn around its size, and whether the first exchange is pinned. */
const scenario = fc
  .tuple(
    conversationArbitrary({ events: true }),
    fc.double({ min: 0, max: 1.3, noNaN: true }),
    fc.boolean(),
    fc.boolean(),
  )
  .map(([conversation, fraction, pinFirstExchange, disabled]) => {
    const full = planWindow({ ...conversation, budgetTokens: 0, counter });
    const budgetTokens = disabled ? 0 : Math.max(1, Math.round(full.totalTokens * fraction));
    return { ...conversation, budgetTokens, pinFirstExchange };
  });

function isSynthetic(message: ModelMessage): boolean {
  return message.providerOptions?.['sliding-context']?.synthetic === true;
}

function checkInvariants(
  plan: WindowPlan,
  input: {
    system: string | undefined;
    tools: ToolDefinition[];
    messages: Message[];
    pinFirstExchange: boolean;
  },
) {
  const messages = applyEvents(input.messages);
  const pinFirst = input.pinFirstExchange;
  const target = { provider: plan.provider, model: plan.model };
  const inWindow = plan.exchanges.filter((exchange) => exchange.inWindow);
  const last = plan.exchanges.at(-1);

  // Whole exchanges only: the window is the preamble plus complete exchanges, in order.
  const expected = [
    ...messages.slice(0, plan.preambleMessages),
    ...inWindow.flatMap((exchange) =>
      messages.slice(exchange.firstMessage, exchange.lastMessage + 1),
    ),
  ];
  expect(plan.messages.filter((message) => !isSynthetic(message))).toEqual(expected);

  // No orphans, nothing dangling: the request is valid to send.
  expect(checkPairing(plan.messages)).toEqual([]);

  // The first non-system message is a user message.
  const firstNonSystem = plan.messages.find((message) => message.role !== 'system');
  if (firstNonSystem) expect(firstNonSystem.role).toBe('user');

  // The latest exchange is always kept; the pinned first exchange too.
  if (last) expect(last.inWindow).toBe(true);
  if (pinFirst && plan.exchanges[0]) expect(plan.exchanges[0].inWindow).toBe(true);

  // Evicted exchanges are the oldest unpinned ones: the window is a suffix.
  const unpinned = plan.exchanges.filter((exchange) => !exchange.pinned);
  const firstIn = unpinned.findIndex((exchange) => exchange.inWindow);
  if (firstIn >= 0)
    expect(unpinned.slice(firstIn).every((exchange) => exchange.inWindow)).toBe(true);

  // The parts add up, and they add up to what the counter says of the request as sent.
  const exchangeTokens = inWindow.reduce((sum, exchange) => sum + exchange.tokens, 0);
  expect(plan.totalTokens).toBe(plan.pinnedTokens + exchangeTokens);
  expect(plan.totalTokens).toBe(
    counter.count({
      ...target,
      request: { system: input.system, tools: input.tools, messages: plan.messages },
    }).tokens,
  );

  if (plan.budgetTokens === 0) {
    expect(plan.evictedExchanges).toBe(0);
    expect(plan.overBudget).toBe(false);
    return;
  }
  // Within budget unless at the floor (only pinned content and the latest exchange left).
  if (plan.overBudget) {
    expect(unpinned.filter((exchange) => exchange.inWindow).length).toBeLessThanOrEqual(1);
    expect(plan.overByTokens).toBe(plan.totalTokens - plan.budgetTokens);
  } else {
    expect(plan.totalTokens).toBeLessThanOrEqual(plan.budgetTokens);
  }
  // Maximal: the next-older exchange would not fit.
  const nextOlder = firstIn > 0 ? unpinned[firstIn - 1] : undefined;
  if (nextOlder) expect(plan.totalTokens + nextOlder.tokens).toBeGreaterThan(plan.budgetTokens);
}

describe('planWindow properties', () => {
  it('keeps whole exchanges, no orphans, the latest exchange, within budget, maximal', () => {
    fc.assert(
      fc.property(scenario, (input) => {
        const plan = planWindow({ ...input, counter });
        checkInvariants(plan, input);
      }),
      { numRuns: RUNS },
    );
  });

  it('is deterministic', () => {
    fc.assert(
      fc.property(scenario, (input) => {
        expect(planWindow({ ...input, counter })).toEqual(planWindow({ ...input, counter }));
      }),
      { numRuns: RUNS },
    );
  });
});

describe('WindowState properties', () => {
  it('append then prune, chunk by chunk, equals planWindow on the same messages', () => {
    fc.assert(
      fc.property(
        scenario,
        fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 40 }),
        (input, chunkSizes) => {
          const state = new WindowState({ ...input, counter });
          let appended = 0;
          let chunk = 0;
          while (appended < input.messages.length) {
            const size = chunkSizes[chunk++ % chunkSizes.length] ?? 1;
            const next = input.messages.slice(appended, appended + size);
            appended += next.length;
            state.append(next).prune();
            const expected = planWindow({
              ...input,
              messages: input.messages.slice(0, appended),
              counter,
            });
            expect(state.plan()).toEqual(expected);
            expect(state.totalTokens).toBe(expected.totalTokens);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('follows budget changes, evicting and readmitting as planWindow would', () => {
    fc.assert(
      fc.property(
        scenario,
        fc.array(fc.nat({ max: 30_000 }), { minLength: 1, maxLength: 4 }),
        (input, budgets) => {
          const state = new WindowState({ ...input, counter }).append(input.messages);
          state.prune();
          for (const budgetTokens of budgets) {
            state.setBudgetTokens(budgetTokens);
            state.prune();
            expect(state.plan()).toEqual(planWindow({ ...input, budgetTokens, counter }));
          }
        },
      ),
      { numRuns: RUNS },
    );
  });
});
