import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { conversationArbitrary } from '../testing/conversation-arbitrary.js';
import { checkWindowInvariants } from '../testing/window-invariants.js';
import { bytesPerTokenCounter } from '../tokens/bytes-per-token-counter.js';
import { lowWaterTokens } from './cache-aware-policy.js';
import { planWindow } from './plan-window.js';
import type { WindowPlan } from './window-plan.js';
import { type CacheAwarePolicy, DEFAULT_WINDOW_POLICY, validateWindowPolicy } from './window-policy.js';
import { WindowState } from './window-state.js';

const RUNS = 300;
const counter = bytesPerTokenCounter;

/** A conversation that only grows, a low-water mark, a budget around a few exchanges, chunk sizes. */
const scenario = fc
  .tuple(
    conversationArbitrary({ maxExchanges: 30 }),
    fc.double({ min: 0.3, max: 1, noNaN: true }),
    fc.double({ min: 0.05, max: 0.8, noNaN: true }),
    fc.boolean(),
    fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 20 }),
  )
  .map(([conversation, lowWaterMark, share, pinFirstExchange, chunkSizes]) => {
    const full = planWindow({ ...conversation, budgetTokens: 0, counter });
    const policy: CacheAwarePolicy = { name: 'cache-aware', lowWaterMark };
    return { ...conversation, policy, budgetTokens: Math.max(1, Math.round(full.totalTokens * share)), pinFirstExchange, chunkSizes };
  });

/** Index of the first unpinned exchange in the window, or the exchange count when none is. */
function cutOf(plan: WindowPlan): number {
  const first = plan.exchanges.find((exchange) => exchange.inWindow && !exchange.pinned);
  return first ? first.index : plan.exchanges.length;
}

/** The plans of a growing conversation, chunk by chunk, each given the cutoff of the one before. */
function growingPlans(input: ReturnType<typeof scenario.generate>['value']): WindowPlan[] {
  const plans: WindowPlan[] = [];
  let appended = 0;
  let chunk = 0;
  while (appended < input.messages.length) {
    const previousMessageCount = plans.length === 0 ? undefined : appended;
    appended += input.chunkSizes[chunk++ % input.chunkSizes.length] ?? 1;
    plans.push(planWindow({ ...input, messages: input.messages.slice(0, appended), counter, previousCutoff: plans.at(-1)?.cutoffMessage, previousMessageCount }));
  }
  return plans;
}

describe('the cache-aware policy', () => {
  it('is the default, takes a low-water mark in (0, 1], and refuses one outside it, naming the field', () => {
    expect(DEFAULT_WINDOW_POLICY.name).toBe('cache-aware');
    expect(validateWindowPolicy('cache-aware')).toEqual({ name: 'cache-aware' });
    expect(validateWindowPolicy({ name: 'cache-aware', lowWaterMark: 0.6 })).toEqual({ name: 'cache-aware', lowWaterMark: 0.6 });
    expect(() => validateWindowPolicy({ name: 'cache-aware', lowWaterMark: 1.5 })).toThrow(/^policy\.lowWaterMark: /);
    expect(() => validateWindowPolicy({ name: 'cache-aware', lowWaterMark: 0 })).toThrow(/^policy\.lowWaterMark: /);
  });

  it('keeps the window\'s invariants: whole exchanges, no orphans, the latest and the pinned kept, the budget a ceiling', () => {
    fc.assert(
      fc.property(scenario, (input) => {
        for (const plan of growingPlans(input)) {
          checkWindowInvariants(plan, input, counter, { maximal: false });
          expect(plan.policy).toBe('cache-aware');
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('never moves the cut while the request fits; a moved cut leaves the request at or under the low-water mark', () => {
    let moves = 0;
    fc.assert(
      fc.property(scenario, (input) => {
        let previous: WindowPlan | undefined;
        for (const plan of growingPlans(input)) {
          if (plan.exchanges.length === 0) continue;
          const firstUnpinned = input.pinFirstExchange ? 1 : 0;
          const before = Math.max(firstUnpinned, Math.min(previous ? cutOf(previous) : 0, plan.exchanges.length - 1));
          const atOldCut = plan.pinnedTokens + plan.exchanges.filter((exchange) => exchange.pinned || exchange.index >= before).reduce((sum, exchange) => sum + exchange.tokens, 0);
          const cut = cutOf(plan);
          if (atOldCut <= input.budgetTokens) expect(cut).toBe(before);
          if (cut !== before && atOldCut > input.budgetTokens) {
            moves++;
            const onlyLatest = plan.exchanges.filter((exchange) => exchange.inWindow && !exchange.pinned).length <= 1;
            if (!onlyLatest) {
              expect(plan.totalTokens).toBeLessThanOrEqual(lowWaterTokens(input.policy, input.budgetTokens));
              expect(plan.totalTokens).toBeLessThanOrEqual(input.budgetTokens);
            }
          }
          // The cut never goes back.
          expect(cut).toBeGreaterThanOrEqual(before);
          previous = plan;
        }
      }),
      { numRuns: RUNS },
    );
    expect(moves).toBeGreaterThan(50);
  });

  it('WindowState, appended chunk by chunk, equals planWindow given the previous cutoff, and sends the same messages', () => {
    fc.assert(
      fc.property(scenario, (input) => {
        const state = new WindowState({ ...input, counter });
        let appended = 0;
        let chunk = 0;
        let previousCutoff: number | null | undefined;
        let previousMessageCount: number | undefined;
        while (appended < input.messages.length) {
          const next = input.messages.slice(appended, appended + (input.chunkSizes[chunk++ % input.chunkSizes.length] ?? 1));
          previousMessageCount = previousCutoff === undefined ? undefined : appended;
          appended += next.length;
          state.append(next).prune();
          const plan = planWindow({ ...input, messages: input.messages.slice(0, appended), counter, previousCutoff, previousMessageCount });
          expect(state.plan()).toEqual(plan);
          expect(state.windowMessages()).toEqual(plan.messages);
          previousCutoff = plan.cutoffMessage;
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('a state loaded again with its cut restored plans the same window as the one that kept it', () => {
    fc.assert(
      fc.property(scenario, (input) => {
        const kept = new WindowState({ ...input, counter });
        for (const message of input.messages) kept.append([message]).prune();
        const loaded = new WindowState({ ...input, counter });
        loaded.append(input.messages);
        loaded.restoreCut(kept.cutExchange);
        loaded.prune();
        // The same window; only the report of the cut differs (kept at a restored cut, not moved just now).
        const { cut: keptCut, ...keptPlan } = kept.plan();
        const { cut: loadedCut, ...loadedPlan } = loaded.plan();
        expect(loadedPlan).toEqual(keptPlan);
        expect(loadedCut.exchange).toBe(keptCut.exchange);
        if (loadedCut.exchange !== null) expect(loadedCut.moved).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });
});
