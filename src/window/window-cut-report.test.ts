import { describe, expect, it } from 'vitest';
import type { Message, ModelMessage } from '../message/message.js';
import { answer, user } from '../testing/message-builders.js';
import { bytesPerTokenCounter as counter } from '../tokens/bytes-per-token-counter.js';
import { planWindow } from './plan-window.js';

/** Ten equal exchanges of a user message and an answer. */
const turns = (count: number): ModelMessage[] =>
  Array.from({ length: count }, (_, index) => [user(`question ${index} `.repeat(10)), answer(`answer ${index} `.repeat(10))]).flat();

const messages = turns(10);
const whole = planWindow({ messages, counter, budgetTokens: 0 });
const exchangeTokens = whole.exchanges[0]?.tokens ?? 0;
/** A budget that holds the preamble and `count` exchanges, with a little room to spare. */
const budgetFor = (count: number) => whole.pinnedTokens + exchangeTokens * count + 2;

describe('the cut a plan reports', () => {
  it('first-plan: nothing evicted, the stable prefix ends before the latest exchange', () => {
    const plan = planWindow({ messages, counter, budgetTokens: budgetFor(12) });
    expect(plan.cut).toMatchObject({ reason: 'first-plan', moved: false, previousCutoff: null, previousExchange: null, exchange: 0, cutoff: 0 });
    expect(plan.cut.stablePrefixEnd).toEqual({ message: 17, exchange: 8, tokens: plan.totalTokens - exchangeTokens });
  });

  it('first-plan over budget: the cut moves from the start down to the low-water mark, and only the preamble is stable', () => {
    const plan = planWindow({ messages, counter, budgetTokens: budgetFor(5), policy: { name: 'cache-aware', lowWaterMark: 0.6 } });
    expect(plan.cut).toMatchObject({ reason: 'first-plan', moved: true, exchange: plan.evictedExchanges, tokensAtPreviousCut: whole.totalTokens });
    expect(plan.totalTokens).toBeLessThanOrEqual(plan.cut.lowWaterTokens ?? 0);
    expect(plan.cut.stablePrefixEnd).toEqual({ message: null, exchange: null, tokens: plan.pinnedTokens });
  });

  it('fits: the previous cut stays while the request fits', () => {
    const plan = planWindow({ messages, counter, budgetTokens: budgetFor(8), previousCutoff: 6, previousMessageCount: 18 });
    expect(plan.cut).toMatchObject({ reason: 'fits', moved: false, previousCutoff: 6, previousExchange: 3, exchange: 3, cutoff: 6 });
    expect(plan.cut.tokensAtPreviousCut).toBe(plan.totalTokens);
    // The previous plan held 18 messages: the head up to message 17 is the one the cache holds.
    expect(plan.cut.stablePrefixEnd).toEqual({ message: 17, exchange: 8, tokens: plan.totalTokens - exchangeTokens });
  });

  it('over-budget: the cut moves once, from the previous cut down to the low-water mark', () => {
    const budgetTokens = budgetFor(6);
    const plan = planWindow({ messages, counter, budgetTokens, previousCutoff: 2, previousMessageCount: 18 });
    expect(plan.cut).toMatchObject({ reason: 'over-budget', moved: true, previousExchange: 1, previousCutoff: 2 });
    expect(plan.cut.tokensAtPreviousCut).toBe(whole.pinnedTokens + exchangeTokens * 9);
    expect(plan.cut.tokensAtPreviousCut).toBeGreaterThan(budgetTokens);
    expect(plan.cut.exchange).toBe(plan.evictedExchanges);
    expect(plan.totalTokens).toBeLessThanOrEqual(plan.cut.lowWaterTokens ?? 0);
    expect(plan.cut.lowWaterTokens).toBe(Math.floor(budgetTokens * 0.9));
    expect(plan.cut.stablePrefixEnd).toEqual({ message: null, exchange: null, tokens: plan.pinnedTokens });
  });

  it('over-budget without a move: only the latest exchange is left, and it is over on its own', () => {
    const plan = planWindow({ messages, counter, budgetTokens: 10, previousCutoff: 18 });
    expect(plan.cut).toMatchObject({ reason: 'over-budget', moved: false, exchange: 9, previousExchange: 9 });
    expect(plan.overBudget).toBe(true);
    expect(plan.cut.stablePrefixEnd.message).toBeNull();
  });

  it('policy: the budget policy brings exchanges back though the request fit with the previous cut', () => {
    const plan = planWindow({ messages, counter, budgetTokens: budgetFor(12), policy: { name: 'budget' }, previousCutoff: 10 });
    expect(plan.cut).toMatchObject({ reason: 'policy', moved: true, previousExchange: 5, exchange: 0 });
    expect(plan.cut.lowWaterTokens).toBeNull();
  });

  it('previous-cut-dropped: a rewind went back past the previous cut, so the window is planned afresh', () => {
    const history: Message[] = [...turns(2), { role: 'event', kind: 'mark', label: 'm' }, ...turns(6), { role: 'event', kind: 'rewind', label: 'm' }, ...turns(5)];
    const plan = planWindow({ messages: history, counter, budgetTokens: budgetFor(12), previousCutoff: 10, previousMessageCount: 17 });
    expect(plan.cut).toMatchObject({ reason: 'previous-cut-dropped', moved: false, previousCutoff: null, exchange: 0 });
    // Without the count of messages the previous plan saw, message 10 seems still there: the cut stays.
    const blind = planWindow({ messages: history, counter, budgetTokens: budgetFor(12), previousCutoff: 10 });
    expect(blind.cut).toMatchObject({ reason: 'fits', exchange: 5 });
    // A cut past the end of the visible history is dropped either way.
    expect(planWindow({ messages: turns(3), counter, previousCutoff: 8 }).cut.reason).toBe('previous-cut-dropped');
  });

  it('a previous plan that ended in the middle of an exchange shares the head up to there', () => {
    const plan = planWindow({ messages, counter, budgetTokens: budgetFor(12), previousCutoff: 0, previousMessageCount: 19 });
    const latestUser = counter.countMessage({ provider: plan.provider, model: plan.model, message: messages[18] as ModelMessage }).tokens;
    expect(plan.cut.stablePrefixEnd).toEqual({ message: 18, exchange: 9, tokens: plan.totalTokens - exchangeTokens + latestUser });
  });

  it('windowing-disabled: budget 0', () => {
    const plan = planWindow({ messages, counter, budgetTokens: 0, previousCutoff: 4 });
    expect(plan.cut).toMatchObject({ reason: 'windowing-disabled', moved: true, previousExchange: 2, exchange: 0, lowWaterTokens: null });
  });
});
