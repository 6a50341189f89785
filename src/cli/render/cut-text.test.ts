import { describe, expect, it } from 'vitest';
import type { Message, ModelMessage } from '../../message/message.js';
import { answer, user } from '../../testing/message-builders.js';
import { bytesPerTokenCounter as counter } from '../../tokens/bytes-per-token-counter.js';
import { planWindow } from '../../window/plan-window.js';
import { cutText, stablePrefixText } from './cut-text.js';
import { formatNumber } from './format-number.js';

const turns = (count: number): ModelMessage[] =>
  Array.from({ length: count }, (_, index) => [user(`question ${index} `.repeat(10)), answer(`answer ${index} `.repeat(10))]).flat();
const messages = turns(10);
const whole = planWindow({ messages, counter, budgetTokens: 0 });
const budgetFor = (count: number) => whole.pinnedTokens + (whole.exchanges[0]?.tokens ?? 0) * count + 2;
const told = (options: Parameters<typeof planWindow>[0], numberOf?: (index: number) => number) => {
  const plan = planWindow(options);
  return { plan, text: cutText(plan, plan.cut, numberOf) };
};

describe('what the views say of the cut', () => {
  it('kept: names the exchange and the request against the budget', () => {
    const { plan, text } = told({ messages, counter, budgetTokens: budgetFor(8), previousCutoff: 6 });
    expect(text).toBe(`kept at exchange #3: the request fits (${formatNumber(plan.totalTokens)} <= budget ${formatNumber(plan.budgetTokens)})`);
  });

  it('moved: from where to where, the request that would have passed the budget, and the low-water mark it went down to', () => {
    const { plan, text } = told({ messages, counter, budgetTokens: budgetFor(6), previousCutoff: 2 });
    const { cut } = plan;
    const budget = formatNumber(plan.budgetTokens);
    const lowWater = formatNumber(cut.lowWaterTokens ?? 0);
    expect(text).toBe(
      `moved from exchange #1 to #${cut.exchange}: the request would pass the budget ${budget} (${formatNumber(cut.tokensAtPreviousCut)}); down to ${formatNumber(plan.totalTokens)} <= low-water mark ${lowWater}`,
    );
  });

  it('numbers exchanges as the view does (an agent numbers them over its whole history)', () => {
    const { text } = told({ messages, counter, budgetTokens: budgetFor(6), previousCutoff: 2 }, (index) => index + 100);
    expect(text).toMatch(/^moved from exchange #101 to #10\d: /);
  });

  it('kept over budget: only the latest exchange is left', () => {
    const { text } = told({ messages, counter, budgetTokens: 10, previousCutoff: 18 });
    expect(text).toMatch(/^kept at exchange #9: the request would pass the budget 10 \([\d,]+\), but only the latest exchange is left, and it is kept though over budget$/);
  });

  it('a policy that chooses afresh, a dropped cut, a first plan', () => {
    expect(told({ messages, counter, budgetTokens: budgetFor(12), policy: { name: 'budget' }, previousCutoff: 10 }).text).toMatch(
      /^moved from exchange #5 to #0 by the budget policy \(the request fit: [\d,]+ <= budget [\d,]+\)$/,
    );
    const history: Message[] = [...turns(2), { role: 'event', kind: 'mark', label: 'm' }, ...turns(6), { role: 'event', kind: 'rewind', label: 'm' }, ...turns(5)];
    expect(told({ messages: history, counter, budgetTokens: budgetFor(12), previousCutoff: 10, previousMessageCount: 17 }).text).toMatch(
      /^at exchange #0 \(a rewind or clear went back past the previous cut, so it was dropped\): the request fits/,
    );
    expect(told({ messages, counter, budgetTokens: budgetFor(12) }).text).toMatch(/^at exchange #0 \(no previous cut\): the request fits/);
  });

  it('a first plan over budget with nothing to evict does not say the request fits', () => {
    const one = turns(1);
    const request = planWindow({ messages: one, counter, budgetTokens: 0 }).totalTokens;
    for (const budgetTokens of [1, request - 1]) {
      const { text } = told({ messages: one, counter, budgetTokens });
      expect(text).toBe(
        `at exchange #0 (no previous cut): the request is over budget (${formatNumber(request)} > budget ${formatNumber(budgetTokens)}), but only the latest exchange is left, and it is kept though over budget`,
      );
    }
    expect(told({ messages: [], system: 'You are careful. '.repeat(50), counter, budgetTokens: 1 }).text).toMatch(/^at nothing after the pinned part \(no previous cut\): the request is over budget \([\d,]+ > budget 1\), but only the pinned part is sent/);
  });

  it('a cache-aware cut that stops at the latest exchange above the low-water mark says it could not get down to it', () => {
    const budgetTokens = whole.pinnedTokens + (whole.exchanges[0]?.tokens ?? 0) + 1;
    for (const previousCutoff of [undefined, 2]) {
      const { plan, text } = told({ messages, counter, budgetTokens, previousCutoff });
      const lowWater = plan.cut.lowWaterTokens ?? 0;
      expect(plan.totalTokens).toBeGreaterThan(lowWater);
      expect(plan.totalTokens).toBeLessThanOrEqual(budgetTokens);
      expect(text).toMatch(/^(at exchange #9 \(no previous cut\)|moved from exchange #1 to #9): /);
      expect(text).toContain(`; could not get down to the low-water mark ${formatNumber(lowWater)}: only the latest exchange is left (${formatNumber(plan.totalTokens)} > ${formatNumber(lowWater)}), and it is always kept`);
    }
  });

  it('every comparison it states is true, whatever the budget, policy and previous cut', () => {
    const number = (text: string) => Number(text.replaceAll(',', ''));
    const few = turns(3);
    const request = planWindow({ messages: few, counter, budgetTokens: 0 }).totalTokens;
    for (const policy of [{ name: 'cache-aware' as const }, { name: 'budget' as const }])
      for (const previousCutoff of [undefined, 0, 2, 4])
        for (let budgetTokens = 1; budgetTokens <= request + 2; budgetTokens++) {
          const { text } = told({ messages: few, counter, budgetTokens, policy, previousCutoff });
          for (const [, left = '', sign, right = ''] of text.matchAll(/([\d,]+) (<=|>) (?:budget |low-water mark )?([\d,]+)/g)) {
            expect(sign === '<=' ? number(left) <= number(right) : number(left) > number(right), `${text} (budget ${budgetTokens})`).toBe(true);
          }
        }
  });

  it('the stable prefix: the exchange and message it ends at, and its tokens; or the system prompt and tools only', () => {
    const kept = planWindow({ messages, counter, budgetTokens: budgetFor(12), previousCutoff: 0 });
    expect(stablePrefixText(kept.cut, undefined, true)).toBe(
      `stable through exchange #8, message 17 (${formatNumber(kept.cut.stablePrefixEnd.tokens)} tokens): the head the previous request sent too, served from the prompt cache`,
    );
    const moved = planWindow({ messages, counter, budgetTokens: budgetFor(6), previousCutoff: 2 });
    expect(stablePrefixText(moved.cut)).toBe(`stable through the system prompt and tools only (${formatNumber(moved.pinnedTokens)} tokens): the rest of the request is new to the cache`);
  });
});
