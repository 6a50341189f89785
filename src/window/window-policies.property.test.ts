import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyEvents } from '../message/apply-events.js';
import { conversationArbitrary } from '../testing/conversation-arbitrary.js';
import { checkWindowInvariants } from '../testing/window-invariants.js';
import { bytesPerTokenCounter } from '../tokens/bytes-per-token-counter.js';
import { planWindow } from './plan-window.js';
import { sequenceThresholdFires } from './sequence-policy.js';
import { WindowState } from './window-state.js';
import type { WindowPlan } from './window-plan.js';
import type { WindowPolicy } from './window-policy.js';
import { pinChoicesArbitrary, withPinEvents } from '../testing/pin-events.js';

const RUNS = 500;
const counter = bytesPerTokenCounter;

const policyArbitrary: fc.Arbitrary<WindowPolicy> = fc.oneof(
  fc.record({ name: fc.constant('fraction' as const), fraction: fc.double({ min: 0.05, max: 1, noNaN: true }) }),
  fc.record({
    name: fc.constant('sequence' as const),
    retentionWindow: fc.nat({ max: 12 }),
    tokenThreshold: fc.option(fc.integer({ min: 1, max: 20_000 }), { nil: undefined }),
    messageThreshold: fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }),
    turnThreshold: fc.option(fc.integer({ min: 1, max: 10 }), { nil: undefined }),
  }),
  fc.record({ name: fc.constant('clear-tool-outputs' as const), keep: fc.nat({ max: 3 }), minimumTokens: fc.nat({ max: 500 }) }),
  fc.record({ name: fc.constant('cache-aware' as const), lowWaterMark: fc.double({ min: 0.3, max: 1, noNaN: true }) }),
);

/** A conversation with pinned messages, a policy, and a budget drawn around the conversation's size. */
const scenario = fc
  .tuple(conversationArbitrary({ events: true }), policyArbitrary, fc.double({ min: 0, max: 1.3, noNaN: true }), fc.boolean(), fc.boolean(), pinChoicesArbitrary)
  .map(([generated, policy, share, pinFirstExchange, disabled, pinChoices]) => {
    const conversation = { ...generated, messages: withPinEvents(generated.messages, pinChoices) };
    const full = planWindow({ ...conversation, budgetTokens: 0, counter });
    const budgetTokens = disabled ? 0 : Math.max(1, Math.round(full.totalTokens * share));
    return { ...conversation, policy, budgetTokens, pinFirstExchange };
  });

describe('window policies', () => {
  it('keep the budget window\'s invariants: whole exchanges, no orphans, a user first, the latest kept, the budget a ceiling', () => {
    fc.assert(
      fc.property(scenario, (input) => {
        const plan = planWindow({ ...input, counter });
        const pinFirstExchange = input.pinFirstExchange || input.policy.name === 'fraction';
        checkWindowInvariants(plan, { ...input, pinFirstExchange }, counter, {
          maximal: input.policy.name === 'clear-tool-outputs' && plan.clearedToolOutputs.length === 0,
          cleared: plan.clearedToolOutputs.length > 0,
          thresholds: input.policy.name === 'sequence',
        });
        expect(plan.policy).toBe(input.policy.name);
      }),
      { numRuns: RUNS },
    );
  });

  it('pins: each pinned message is sent word for word in every window, in place or hoisted, and counted', () => {
    let runsThatHoisted = 0;
    fc.assert(
      fc.property(scenario, (input) => {
        const plan = planWindow({ ...input, counter });
        const sent = JSON.stringify(plan.messages);
        for (const pin of plan.pins) {
          const message = applyEvents(input.messages)[pin.message];
          const text = typeof message?.content === 'string' ? message.content : (message?.content ?? []).flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n\n');
          expect(sent).toContain(JSON.stringify(text).slice(1, -1));
        }
        if (plan.pins.some((pin) => pin.placement === 'hoisted')) runsThatHoisted++;
      }),
      { numRuns: RUNS },
    );
    // The generated cases do hoist pins: the checks here and in the invariants are not vacuous.
    expect(runsThatHoisted).toBeGreaterThan(10);
  });

  it('fraction keeps the first exchange and removes whole steps until the request fits', () => {
    fc.assert(
      fc.property(scenario.filter((input) => input.policy.name === 'fraction'), (input) => {
        const plan = planWindow({ ...input, counter });
        if (plan.exchanges.length > 0) expect(plan.exchanges[0]?.inWindow).toBe(true);
        // Nothing is evicted from a request that fits.
        const whole = planWindow({ ...input, counter, budgetTokens: 0 });
        if (input.budgetTokens === 0 || whole.totalTokens <= input.budgetTokens) expect(plan.evictedExchanges).toBe(0);
      }),
      { numRuns: RUNS },
    );
  });

  it('sequence drops until no threshold fires, unless only the latest exchange is left', () => {
    fc.assert(
      fc.property(scenario.filter((input) => input.policy.name === 'sequence'), (input) => {
        const plan = planWindow({ ...input, counter });
        const policy = input.policy as Extract<WindowPolicy, { name: 'sequence' }>;
        const unpinnedIn = plan.exchanges.filter((exchange) => exchange.inWindow && !exchange.pinned);
        const window = { tokens: plan.totalTokens, messages: plan.messages.length, turns: plan.exchanges.filter((exchange) => exchange.inWindow).length };
        if (unpinnedIn.length > 1) expect(sequenceThresholdFires(policy, window)).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });

  it('cleared outputs keep their calls and ids, name their size, and leave the newest outputs', () => {
    let runsThatCleared = 0;
    fc.assert(
      fc.property(scenario.filter((input) => input.policy.name === 'clear-tool-outputs'), (input) => {
        const plan = planWindow({ ...input, counter });
        const policy = input.policy as Extract<WindowPolicy, { name: 'clear-tool-outputs' }>;
        const resultIds = plan.messages.flatMap((message) =>
          typeof message.content === 'string' ? [] : message.content.flatMap((part) => (part.type === 'tool-result' ? [part.toolCallId] : [])),
        );
        const newest = new Set(resultIds.slice(Math.max(0, resultIds.length - (policy.keep ?? 2))));
        for (const cleared of plan.clearedToolOutputs) {
          expect(newest.has(cleared.toolCallId)).toBe(false);
          expect(cleared.storedAs).toMatch(/^message \d+$/);
        }
        if (plan.clearedToolOutputs.length > 0) {
          runsThatCleared++;
          expect(JSON.stringify(plan.messages)).toContain('[output cleared: ');
          const messages = applyEvents(input.messages);
          const index = Number(plan.clearedToolOutputs[0]?.storedAs.slice('message '.length));
          expect(JSON.stringify(messages[index])).toContain(plan.clearedToolOutputs[0]?.toolCallId);
        }
      }),
      { numRuns: RUNS },
    );
    // The generated cases do reach clearing: the checks above are not vacuous.
    expect(runsThatCleared).toBeGreaterThan(10);
  });

  it('WindowState, appended chunk by chunk, equals planWindow given the previous cut under every policy, and sends the same messages', () => {
    fc.assert(
      fc.property(scenario, fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 20 }), (input, chunkSizes) => {
        const state = new WindowState({ ...input, counter });
        let appended = 0;
        let chunk = 0;
        let previous: WindowPlan | undefined;
        while (appended < input.messages.length) {
          const next = input.messages.slice(appended, appended + (chunkSizes[chunk++ % chunkSizes.length] ?? 1));
          // The previous plan's cut, followed through any rewind or clear in this chunk.
          const previousMessageCount = previous && appended;
          appended += next.length;
          state.append(next).prune();
          const plan = planWindow({ ...input, messages: input.messages.slice(0, appended), counter, previousCutoff: previous?.cutoffMessage, previousMessageCount });
          expect(state.plan()).toEqual(plan);
          expect(state.windowMessages()).toEqual(plan.messages);
          // The running total, pins hoisted or in place, is the plan's (cleared outputs aside).
          if (plan.clearedToolOutputs.length === 0) expect(state.totalTokens).toBe(plan.totalTokens);
          previous = plan;
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('a cache-aware cut that a rewind went back past is dropped: the window is planned as if there were none', () => {
    let dropped = 0;
    fc.assert(
      fc.property(scenario.filter((input) => input.policy.name === 'cache-aware'), fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 20 }), (input, chunkSizes) => {
        let appended = 0;
        let chunk = 0;
        let previous: WindowPlan | undefined;
        while (appended < input.messages.length) {
          const previousMessageCount = previous && appended;
          appended += chunkSizes[chunk++ % chunkSizes.length] ?? 1;
          const messages = input.messages.slice(0, appended);
          const plan = planWindow({ ...input, messages, counter, previousCutoff: previous?.cutoffMessage, previousMessageCount });
          if (plan.cut.reason === 'previous-cut-dropped') {
            dropped++;
            const { cut, ...fresh } = planWindow({ ...input, messages, counter });
            const { cut: droppedCut, ...planned } = plan;
            expect(planned).toEqual(fresh);
            expect(droppedCut.previousCutoff).toBeNull();
            expect(cut.reason).toBe('first-plan');
          }
          // The window never starts past what the visible history holds.
          if (plan.cutoffMessage !== null) expect(plan.cutoffMessage).toBeLessThan(applyEvents(messages).length);
          previous = plan;
        }
      }),
      { numRuns: RUNS },
    );
    // Rewinds past a kept cut do occur among the generated cases: the check above is not vacuous.
    expect(dropped).toBeGreaterThan(5);
  });
});
