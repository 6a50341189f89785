import { describe, expect, it } from 'vitest';
import { answer, user } from '../testing/message-builders.js';
import { bytesPerTokenCounter as counter } from '../tokens/bytes-per-token-counter.js';
import { planWindow } from './plan-window.js';
import { WindowState } from './window-state.js';

const turns = (count: number) => Array.from({ length: count }, (_, i) => [user(`question ${i} `.repeat(10)), answer(`answer ${i} `.repeat(10))]).flat();
/** Bad input the types would refuse, as JavaScript or untyped JSON hands it over. */
const untyped = (value: unknown): never => value as never;
/** Expects `action` to throw a SlidingContextError with this code and a message matching `message`. */
function expectError(action: () => unknown, code: string, message: RegExp): void {
  expect(action).toThrow(message);
  try {
    action();
  } catch (error) {
    expect(error).toMatchObject({ name: 'SlidingContextError', code });
  }
}

describe('bad input to the window', () => {
  it.each([
    [{ name: 'fraction', fraction: 5 }, /policy\.fraction/],
    [{ name: 'cache-aware', lowWaterMark: -1 }, /policy\.lowWaterMark/],
    [{ name: 'nope' }, /policy\.name: "nope" is not a window policy/],
  ])('refuses the policy %j with INVALID_POLICY, as openConversation does', (policy, message) => {
    const options = { messages: turns(40), counter, budgetTokens: 1000, policy: untyped(policy) };
    expectError(() => planWindow(options), 'INVALID_POLICY', message);
    expectError(() => new WindowState(options), 'INVALID_POLICY', message);
  });

  it('refuses a message of the wrong shape with INVALID_MESSAGE, naming its index and field', () => {
    const messages = untyped([user('hi'), { role: 'user', content: 5 }]);
    expectError(() => planWindow({ messages, counter }), 'INVALID_MESSAGE', /^Invalid message: messages\[1\]\.content: expected string or array, received number 5/);
    expectError(() => new WindowState({ counter }).append(messages), 'INVALID_MESSAGE', /messages\[1\]\.content/);
    const part = untyped([{ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 7, toolName: 'x', input: {} }] }]);
    expectError(() => planWindow({ messages: [user('hi'), ...part], counter }), 'INVALID_MESSAGE', /messages\[1\]\.content\[0\]\.toolCallId/);
    expectError(() => new WindowState({ counter }).append(untyped([null])), 'INVALID_MESSAGE', /messages\[0\]/);
  });

  it('refuses messages that are not an array, and a missing counter', () => {
    expectError(() => planWindow({ messages: untyped(null), counter }), 'INVALID_MESSAGE', /messages: expected an array/);
    expectError(() => planWindow(untyped({ messages: turns(1) })), 'INVALID_OPTION', /counter/);
    expectError(() => new WindowState(untyped({})), 'INVALID_OPTION', /counter/);
  });

  it('refuses a budget given as a string', () => {
    expectError(() => planWindow({ messages: turns(1), counter, budgetTokens: untyped('100') }), 'BUDGET_INVALID', /budgetTokens must be a number/);
    expectError(() => new WindowState({ counter, budgetTokens: untyped('100') }), 'BUDGET_INVALID', /budgetTokens/);
    expectError(() => {
      new WindowState({ counter }).setBudgetTokens(untyped('100'));
    }, 'BUDGET_INVALID', /budgetTokens/);
  });
});
