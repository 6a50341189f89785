import { expect } from 'vitest';
import { checkPairing } from '../exchange/check-pairing.js';
import { applyEvents } from '../message/apply-events.js';
import type { Message, ModelMessage, ToolDefinition } from '../message/message.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { WindowPlan } from '../window/window-plan.js';
import { hoistedPinMessage } from '../window/pinned-message.js';

/** A message with tool outputs blanked, to compare windows whose outputs may have been cleared. */
function withoutOutputs(message: ModelMessage): ModelMessage {
  if (typeof message.content === 'string') return message;
  const content = message.content.map((part) => (part.type === 'tool-result' ? { ...part, output: { type: 'text' as const, value: '' } } : part));
  return { ...message, content } as ModelMessage;
}

function isSynthetic(message: ModelMessage): boolean {
  return message.providerOptions?.['sliding-context']?.synthetic === true;
}

/**
 * The invariants every window policy keeps: whole exchanges in order, a request valid to send that
 * starts at a user message, the latest (and pinned) exchange kept, a suffix of the rest, totals that
 * add up to the counter's count of the request, and the budget as a ceiling. `maximal` adds the
 * budget policy's own: the next-older exchange would not fit.
 */
export function checkWindowInvariants(
  plan: WindowPlan,
  input: {
    system: string | undefined;
    tools: ToolDefinition[];
    messages: Message[];
    pinFirstExchange: boolean;
  },
  counter: TokenCounter,
  { maximal = true, cleared = false, thresholds = false } = {},
) {
  const messages = applyEvents(input.messages);
  const pinFirst = input.pinFirstExchange;
  const target = { provider: plan.provider, model: plan.model };
  const inWindow = plan.exchanges.filter((exchange) => exchange.inWindow);
  const last = plan.exchanges.at(-1);

  // Whole exchanges only: the window is the preamble, the pins hoisted, then complete exchanges, in order.
  const hoisted = plan.pins.filter((pin) => pin.placement === 'hoisted');
  const expected = [
    ...messages.slice(0, plan.preambleMessages),
    ...hoisted.map((pin) => hoistedPinMessage(messages[pin.message] as ModelMessage, '')),
    ...inWindow.flatMap((exchange) =>
      messages.slice(exchange.firstMessage, exchange.lastMessage + 1),
    ),
  ];
  const sent = plan.messages.filter((message) => !isSynthetic(message));
  expect(cleared ? sent.map(withoutOutputs) : sent).toEqual(cleared ? expected.map(withoutOutputs) : expected);

  // Every pin is sent: in its exchange, which is then in the window, or hoisted because it is not.
  for (const pin of plan.pins) {
    const exchange = pin.exchange === null ? undefined : plan.exchanges[pin.exchange];
    expect(pin.placement === 'in-place').toBe(exchange === undefined || exchange.inWindow);
  }

  // No orphans, nothing dangling: the request is valid to send.
  expect(checkPairing(plan.messages)).toEqual([]);

  // The first non-system message is a user message.
  const firstNonSystem = plan.messages.find((message) => message.role !== 'system');
  if (firstNonSystem) expect(firstNonSystem.role).toBe('user');

  // The latest exchange is always kept; the pinned first exchange too.
  if (last) expect(last.inWindow).toBe(true);
  if (pinFirst && plan.exchanges[0]) expect(plan.exchanges[0].inWindow).toBe(true);

  // Evicted exchanges are the oldest unpinned ones: the window is a suffix.
  const unpinned = plan.exchanges.filter((exchange) => !exchange.pinned);
  const firstIn = unpinned.findIndex((exchange) => exchange.inWindow);
  if (firstIn >= 0)
    expect(unpinned.slice(firstIn).every((exchange) => exchange.inWindow)).toBe(true);

  // The parts add up, and they add up to what the counter says of the request as sent.
  const exchangeTokens = inWindow.reduce((sum, exchange) => sum + exchange.tokens, 0);
  expect(plan.totalTokens).toBe(plan.pinnedTokens + exchangeTokens);
  expect(plan.totalTokens).toBe(
    counter.count({
      ...target,
      request: { system: input.system, tools: input.tools, messages: plan.messages },
    }).tokens,
  );

  if (plan.budgetTokens === 0) {
    if (!thresholds) expect(plan.evictedExchanges).toBe(0);
    expect(plan.overBudget).toBe(false);
    return;
  }
  // Within budget unless at the floor (only pinned content and the latest exchange left).
  if (plan.overBudget) {
    expect(unpinned.filter((exchange) => exchange.inWindow).length).toBeLessThanOrEqual(1);
    expect(plan.overByTokens).toBe(plan.totalTokens - plan.budgetTokens);
  } else {
    expect(plan.totalTokens).toBeLessThanOrEqual(plan.budgetTokens);
  }
  if (!maximal) return;
  // Maximal: the next-older exchange would not fit.
  const nextOlder = firstIn > 0 ? unpinned[firstIn - 1] : undefined;
  // Bringing it back would add it less its pins, which are hoisted while it is out.
  const itsPins = hoisted.filter((pin) => pin.exchange === nextOlder?.index).reduce((sum, pin) => sum + pin.tokens, 0);
  if (nextOlder) expect(plan.totalTokens + nextOlder.tokens - itsPins).toBeGreaterThan(plan.budgetTokens);
}
