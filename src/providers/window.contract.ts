import fc from 'fast-check';
import { expect, it } from 'vitest';
import { checkPairing } from '../exchange/check-pairing.js';
import { detectExchanges } from '../exchange/detect-exchanges.js';
import { applyEvents } from '../message/apply-events.js';
import { conversationArbitrary, withoutEvents } from '../testing/conversation-arbitrary.js';
import { bytesPerTokenCounter } from '../tokens/bytes-per-token-counter.js';
import { planWindow } from '../window/plan-window.js';
import { buildRequest, convertFrom, type WireFormat } from './wire-format.js';

/**
 * The window contract every wire format meets: a body in the format, windowed under any budget
 * and built back into the format, holds whole exchanges, no orphaned or dangling tool calls, and
 * starts (after system content) with a user message.
 */
export function describeWindowContract(format: WireFormat, fixtures: readonly unknown[] = []) {
  const check = (body: unknown, fraction: number) => {
    const converted = convertFrom(format, body);
    const messages = applyEvents(converted.messages);
    const full = planWindow({ ...converted, messages, budgetTokens: 0, counter: bytesPerTokenCounter });
    const plan = planWindow({ ...converted, messages, budgetTokens: Math.max(1, Math.round(full.totalTokens * fraction)), counter: bytesPerTokenCounter });
    const rebuilt = buildRequest(format, { model: 'test-model', system: converted.system, tools: converted.tools, messages: plan.messages, options: converted.options });
    const back = applyEvents(convertFrom(format, rebuilt).messages);
    expect(checkPairing(back)).toEqual([]);
    const first = back.find((message) => message.role !== 'system');
    if (first) expect(first.role).toBe('user');
    const kept = plan.exchanges.filter((exchange) => exchange.inWindow).length;
    const exchangesBack = detectExchanges(back).length;
    // Formats that merge turns can only join exchanges' user turns with tool results, never split them.
    expect(exchangesBack).toBeLessThanOrEqual(kept);
    if (kept > 0) expect(exchangesBack).toBeGreaterThan(0);
    const latest = plan.exchanges.at(-1);
    if (latest) expect(latest.inWindow).toBe(true);
  };

  it(`${format}: generated conversations windowed under any budget keep whole exchanges, no orphans, a user first`, () => {
    fc.assert(
      fc.property(conversationArbitrary({ maxExchanges: 10 }), fc.double({ min: 0, max: 1.2, noNaN: true }), (conversation, fraction) => {
        const body = buildRequest(format, { model: 'test-model', system: conversation.system, tools: conversation.tools, messages: withoutEvents(conversation.messages) });
        check(body, fraction);
      }),
      { numRuns: 200 },
    );
  });

  if (fixtures.length > 0) {
    it(`${format}: every fixture windowed at every tenth of its size keeps the contract`, () => {
      for (const fixture of fixtures) for (let tenth = 0; tenth <= 10; tenth++) check(fixture, tenth / 10);
    });
  }
}
