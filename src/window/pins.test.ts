import { describe, expect, it } from 'vitest';
import { replayEvents } from '../message/apply-events.js';
import type { Message } from '../message/message.js';
import { pinEvent } from '../message/pin-event.js';
import { answer, calls, results, user } from '../testing/message-builders.js';
import { bytesPerTokenCounter } from '../tokens/bytes-per-token-counter.js';
import { planWindow } from './plan-window.js';
import { pinEventsFor, requirePinRoom, showsText } from './pinned-message.js';
import { WindowState } from './window-state.js';

const counter = bytesPerTokenCounter;
const RULE = 'Never push to main; open a pull request.';
const turn = (i: number): Message[] => [user(`Request ${i}: ${'details '.repeat(40)}`), answer(`Done ${i}. ${'notes '.repeat(40)}`)];

/** The rule as the first exchange, pinned, then `turns` exchanges. */
const history = (turns: number): Message[] => [user(RULE), pinEvent('pin', 0), answer('OK.'), ...Array.from({ length: turns }, (_, i) => turn(i + 1)).flat()];

describe('pins in the window', () => {
  it('a pinned message is in place while its exchange is in the window, and hoisted word for word after the preamble once it is evicted', () => {
    const whole = planWindow({ messages: history(6), counter, budgetTokens: 0 });
    expect(whole.pins).toEqual([{ message: 0, exchange: 0, placement: 'in-place', tokens: expect.any(Number) as number }]);
    const plan = planWindow({ messages: [{ role: 'system', content: 'Be terse.' }, ...history(6)], counter, budgetTokens: 400, policy: { name: 'budget' } });
    expect(plan.exchanges[0]?.inWindow).toBe(false);
    expect(plan.pins).toEqual([{ message: 1, exchange: 0, placement: 'hoisted', tokens: expect.any(Number) as number }]);
    expect(plan.messages[0]).toEqual({ role: 'system', content: 'Be terse.' });
    expect(plan.messages[1]).toEqual({ role: 'system', content: RULE, providerOptions: { 'sliding-context': { hoistedPin: true } } });
    expect(plan.messages[2]?.role).toBe('user');
    // Counted against the budget, in the preamble's share.
    const inWindow = plan.exchanges.filter((exchange) => exchange.inWindow).reduce((sum, exchange) => sum + exchange.tokens, 0);
    expect(plan.totalTokens).toBe(plan.pinnedTokens + inWindow);
    expect(plan.totalTokens).toBeLessThanOrEqual(400);
    const unpinned = planWindow({ messages: [{ role: 'system', content: 'Be terse.' }, ...history(6).filter((message) => message.role !== 'event')], counter, budgetTokens: 400, policy: { name: 'budget' } });
    expect(unpinned.pinnedTokens).toBeLessThan(plan.pinnedTokens);
    expect(plan.floorTokens).toBe(plan.pinnedTokens + (plan.exchanges.at(-1)?.tokens ?? 0));
  });

  it('WindowState gives the same plan, pinned by event or by index', () => {
    const messages = history(6);
    const byEvent = new WindowState({ counter, budgetTokens: 400, policy: { name: 'budget' } }).append(messages);
    byEvent.prune();
    expect(byEvent.plan()).toEqual(planWindow({ messages, counter, budgetTokens: 400, policy: { name: 'budget' } }));
    const byIndex = new WindowState({ counter, budgetTokens: 400, policy: { name: 'budget' } }).append(messages.filter((message) => message.role !== 'event'));
    byIndex.pin(0);
    byIndex.prune();
    expect(byIndex.windowMessages()).toEqual(byEvent.windowMessages());
    byIndex.unpin(0);
    byIndex.prune();
    expect(byIndex.plan().pins).toEqual([]);
  });

  it('refuses to pin a tool call or a tool result: hoisted alone it would be orphaned', () => {
    const messages: Message[] = [user('Read a.ts'), calls('a'), results('a'), answer('Read.')];
    expect(() => planWindow({ messages: [...messages.slice(0, 2), pinEvent('pin', 0), ...messages.slice(2)], counter })).toThrow(
      expect.objectContaining({ code: 'INVALID_PIN', message: expect.stringContaining('holds a tool-call (read_file, a)') as string }),
    );
    expect(() => new WindowState({ counter }).append([...messages.slice(0, 3), pinEvent('pin', 0)])).toThrow(expect.objectContaining({ code: 'INVALID_PIN', message: expect.stringContaining('tool-result') as string }));
    expect(() => pinEventsFor(messages)).toThrow(expect.objectContaining({ code: 'INVALID_PIN', message: expect.stringContaining('messages[1]') as string }));
    expect(() => planWindow({ messages: [user('a'), { role: 'event', kind: 'pin', data: { back: 3 } }], counter })).toThrow(expect.objectContaining({ code: 'INVALID_PIN', message: expect.stringContaining('sees only 1 message') as string }));
    expect(() => planWindow({ messages: [user('a'), { role: 'event', kind: 'pin' }], counter })).toThrow(expect.objectContaining({ code: 'INVALID_PIN', message: expect.stringContaining('data { back: n }') as string }));
  });

  it('a rewind restores the pins of its mark\'s time; a clear drops them all; unpin takes one away', () => {
    const base: Message[] = [user('first'), answer('one'), user('second'), answer('two')];
    const mark: Message = { role: 'event', kind: 'mark', label: 'm' };
    expect(replayEvents([...base, pinEvent('pin', 3), mark, pinEvent('pin', 1), pinEvent('unpin', 3)], (message) => message).pins).toEqual([2]);
    const rewind: Message = { role: 'event', kind: 'rewind', label: 'm' };
    const clear: Message = { role: 'event', kind: 'clear' };
    expect(replayEvents([...base, pinEvent('pin', 3), mark, pinEvent('pin', 1), pinEvent('unpin', 3), rewind], (message) => message).pins).toEqual([0]);
    expect(replayEvents([...base, pinEvent('pin', 3), clear, user('third')], (message) => message).pins).toEqual([]);
    const state = new WindowState({ counter }).append([...base, pinEvent('pin', 3), mark, user('third'), pinEvent('pin', 0), rewind]);
    expect(state.pins).toEqual([0]);
  });

  it('a pin that leaves no room for the latest exchange is refused with the numbers', () => {
    expect(() => {
      requirePinRoom('seq 4', { before: 900, after: 1_300, budgetTokens: 1_000 });
    }).toThrow(
      expect.objectContaining({ code: 'PIN_OVER_BUDGET', message: 'Cannot pin seq 4: it adds 400 tokens, and the preamble, the pins and the latest exchange would then take 1300 tokens, over the budget of 1000; unpin another message or raise the budget.' }),
    );
    // Within budget, adding nothing (a pin of the latest exchange), or with windowing off: allowed.
    for (const floor of [{ before: 900, after: 1_000, budgetTokens: 1_000 }, { before: 1_300, after: 1_300, budgetTokens: 1_000 }, { before: 0, after: 5_000, budgetTokens: 0 }]) {
      expect(() => {
        requirePinRoom('seq 4', floor);
      }).not.toThrow();
    }
  });

  it('finds a pinned text word for word in what is sent, and only then', () => {
    expect(showsText([user('x'), { role: 'system', content: `summary\n${RULE}\nmore` }], RULE)).toBe(true);
    expect(showsText([{ role: 'assistant', content: [{ type: 'text', text: 'Never push to main;' }, { type: 'text', text: 'open a pull request.' }] }], RULE)).toBe(false);
    expect(showsText([user(RULE.slice(0, -1))], RULE)).toBe(false);
  });
});
