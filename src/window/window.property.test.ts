import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { conversationArbitrary } from '../testing/conversation-arbitrary.js';
import { bytesPerTokenCounter } from '../tokens/bytes-per-token-counter.js';
import { planWindow } from './plan-window.js';
import { checkWindowInvariants as checkInvariants } from '../testing/window-invariants.js';
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
    // The budget policy's own properties: the newest exchanges that fit, at every prune.
    return { ...conversation, budgetTokens, pinFirstExchange, policy: { name: 'budget' as const } };
  });

describe('planWindow properties', () => {
  it('keeps whole exchanges, no orphans, the latest exchange, within budget, maximal', () => {
    fc.assert(
      fc.property(scenario, (input) => {
        const plan = planWindow({ ...input, counter });
        checkInvariants(plan, input, counter);
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
          let previous: WindowPlan | undefined;
          while (appended < input.messages.length) {
            const size = chunkSizes[chunk++ % chunkSizes.length] ?? 1;
            const next = input.messages.slice(appended, appended + size);
            const previousMessageCount = previous && appended;
            appended += next.length;
            state.append(next).prune();
            const expected = planWindow({
              ...input,
              messages: input.messages.slice(0, appended),
              counter,
              previousCutoff: previous?.cutoffMessage,
              previousMessageCount,
            });
            expect(state.plan()).toEqual(expected);
            previous = expected;
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
          let previous = state.plan();
          const previousMessageCount = input.messages.length;
          for (const budgetTokens of budgets) {
            state.setBudgetTokens(budgetTokens);
            state.prune();
            const expected = planWindow({ ...input, budgetTokens, counter, previousCutoff: previous.cutoffMessage, previousMessageCount });
            expect(state.plan()).toEqual(expected);
            previous = expected;
          }
        },
      ),
      { numRuns: RUNS },
    );
  });
});
