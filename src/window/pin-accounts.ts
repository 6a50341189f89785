import type { ModelMessage } from '../message/message.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { hoistedPinMessage, type PinAccount } from './pinned-message.js';

/**
 * The accounts of the pinned messages: each one's exchange and its hoisted form with its count.
 * @throws SlidingContextError `INVALID_PIN` for a pin of a message that cannot be pinned
 */
export function accountPins(
  pinned: readonly number[],
  input: {
    readonly messages: readonly ModelMessage[];
    readonly exchanges: readonly { readonly firstMessage: number; readonly lastMessage: number }[];
    readonly counter: TokenCounter;
    readonly target: { readonly provider: string; readonly model: string };
  },
): PinAccount[] {
  let exchange = 0;
  return [...pinned].sort((a, b) => a - b).map((message) => {
    while ((input.exchanges[exchange]?.lastMessage ?? Number.POSITIVE_INFINITY) < message) exchange++;
    const first = input.exchanges[exchange]?.firstMessage;
    const hoisted = hoistedPinMessage(input.messages[message] as ModelMessage, `pinned message ${message}`);
    return {
      message,
      exchange: first === undefined || first > message ? null : exchange,
      hoisted,
      hoistedCount: input.counter.countMessage({ ...input.target, message: hoisted }),
    };
  });
}

/** What the pins of exchanges a policy may evict (from `firstEvictable` on) take when hoisted, by exchange and in all. */
export function pinsByExchange(
  pins: readonly PinAccount[],
  firstEvictable: number,
): { readonly byExchange: ReadonlyMap<number, { readonly tokens: number; readonly messages: number }>; readonly tokens: number; readonly messages: number } {
  const byExchange = new Map<number, { tokens: number; messages: number }>();
  let tokens = 0;
  let messages = 0;
  for (const pin of pins) {
    if (pin.exchange === null || pin.exchange < firstEvictable) continue;
    const sum = byExchange.get(pin.exchange) ?? { tokens: 0, messages: 0 };
    sum.tokens += pin.hoistedCount.tokens;
    sum.messages += 1;
    byExchange.set(pin.exchange, sum);
    tokens += pin.hoistedCount.tokens;
    messages += 1;
  }
  return { byExchange, tokens, messages };
}
