import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { conversationArbitrary } from '../testing/conversation-arbitrary.js';
import { bytesPerTokenCounter } from '../tokens/bytes-per-token-counter.js';
import { ExtendingWindowPlanner } from './extending-window-planner.js';
import { planWindow } from './plan-window.js';
import type { WindowPolicy } from './window-policy.js';

const RUNS = 100;
const counter = bytesPerTokenCounter;

const policyArbitrary: fc.Arbitrary<WindowPolicy> = fc.oneof(
  fc.constant({ name: 'budget' as const }),
  fc.record({ name: fc.constant('cache-aware' as const), lowWaterMark: fc.double({ min: 0.3, max: 1, noNaN: true }) }),
  fc.record({ name: fc.constant('fraction' as const), fraction: fc.double({ min: 0.05, max: 1, noNaN: true }) }),
  fc.record({ name: fc.constant('clear-tool-outputs' as const), keep: fc.nat({ max: 3 }), minimumTokens: fc.nat({ max: 500 }) }),
);

/**
 * A conversation that grows chunk by chunk, a policy and a budget around its size, and for each
 * plan the previous cutoff a view would give (none, null, or any index, past the end too) and
 * whether the messages are built afresh as equal copies (as a summary message is each time).
 */
const scenario = fc
  .tuple(
    conversationArbitrary({ maxExchanges: 25 }),
    policyArbitrary,
    fc.double({ min: 0.05, max: 1.2, noNaN: true }),
    fc.boolean(),
    fc.array(fc.record({ size: fc.integer({ min: 0, max: 7 }), cutoff: fc.option(fc.option(fc.nat({ max: 120 }), { nil: null }), { nil: undefined }), copied: fc.boolean() }), { minLength: 1, maxLength: 25 }),
  )
  .map(([conversation, policy, share, pinFirstExchange, steps]) => {
    const full = planWindow({ ...conversation, budgetTokens: 0, counter });
    return { ...conversation, policy, budgetTokens: Math.max(1, Math.round(full.totalTokens * share)), pinFirstExchange, steps };
  });

describe('ExtendingWindowPlanner', () => {
  it('plans a growing history exactly as planWindow does from each previous cutoff', () => {
    fc.assert(
      fc.property(scenario, ({ steps, ...input }) => {
        const planner = new ExtendingWindowPlanner();
        let length = 0;
        for (const step of steps) {
          length = Math.min(input.messages.length, length + step.size);
          const prefix = input.messages.slice(0, length);
          // An equal copy of the messages plans as the same messages do.
          const messages = step.copied ? (JSON.parse(JSON.stringify(prefix)) as typeof prefix) : prefix;
          const options = { ...input, messages, counter, previousCutoff: step.cutoff };
          expect(planner.plan(options)).toEqual(planWindow(options));
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('starts afresh when the messages no longer extend the ones before, or the budget changes', () => {
    fc.assert(
      fc.property(scenario, fc.nat(), ({ steps, ...input }, seed) => {
        const planner = new ExtendingWindowPlanner();
        planner.plan({ ...input, counter });
        const shorter = input.messages.slice(0, seed % (input.messages.length + 1));
        expect(planner.plan({ ...input, messages: shorter, counter, previousCutoff: steps[0]?.cutoff })).toEqual(planWindow({ ...input, messages: shorter, counter, previousCutoff: steps[0]?.cutoff }));
        const budgetTokens = input.budgetTokens + 1 + (seed % 50);
        expect(planner.plan({ ...input, budgetTokens, counter })).toEqual(planWindow({ ...input, budgetTokens, counter }));
      }),
      { numRuns: RUNS },
    );
  });
});
