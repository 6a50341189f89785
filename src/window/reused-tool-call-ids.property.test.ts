import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkPairing } from '../exchange/check-pairing.js';
import { repairPairing } from '../exchange/repair-pairing.js';
import { applyEvents } from '../message/apply-events.js';
import { conversationArbitrary } from '../testing/conversation-arbitrary.js';
import { checkWindowInvariants } from '../testing/window-invariants.js';
import { bytesPerTokenCounter } from '../tokens/bytes-per-token-counter.js';
import { planWindow } from './plan-window.js';
import { WindowState } from './window-state.js';

const counter = bytesPerTokenCounter;

/**
 * A conversation whose call ids come back once answered, a budget around its size, a pin. The
 * `budget` policy, whose window is maximal (the invariants check that); the default
 * `cache-aware` one cuts further, and has tests of its own.
 */
const scenario = fc
  .tuple(conversationArbitrary({ events: true, maxExchanges: 10, reusedIds: true }), fc.double({ min: 0, max: 1.3, noNaN: true }), fc.boolean())
  .map(([conversation, fraction, pinFirstExchange]) => {
    const full = planWindow({ ...conversation, budgetTokens: 0, counter });
    return { ...conversation, budgetTokens: Math.max(1, Math.round(full.totalTokens * fraction)), pinFirstExchange, policy: { name: 'budget' } as const };
  });

describe('tool call ids used again once answered', () => {
  it('pass checkPairing, need no repair, and every planned window is valid to send, as WindowState plans it too', () => {
    fc.assert(
      fc.property(scenario, (input) => {
        const messages = applyEvents(input.messages);
        expect(checkPairing(messages).filter((problem) => problem.code !== 'MISSING_TOOL_RESULT')).toEqual([]);
        expect(repairPairing(messages).repairs.every((repair) => repair.action === 'added-aborted-result')).toBe(true);
        const plan = planWindow({ ...input, counter });
        expect(checkPairing(plan.messages)).toEqual([]);
        checkWindowInvariants(plan, input, counter);
        const state = new WindowState({ ...input, counter }).append(input.messages);
        state.prune();
        expect(state.plan()).toEqual(plan);
        expect(state.windowMessages()).toEqual(plan.messages);
      }),
      { numRuns: 200 },
    );
  });
});
