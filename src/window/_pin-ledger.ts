import type { ExchangeRecord } from './exchange-record.js';
import type { PinAccount } from './pinned-message.js';

/**
 * The pins a `WindowState` holds. A pin of an exchange the window may evict is counted as hoisted
 * (in {@link tokens}) and its exchange less it, whether or not the exchange is in the window: the
 * sums are the request's either way.
 */
export class PinLedger {
  readonly #pins = new Map<number, PinAccount>();
  /** Tokens and number of the pins of evictable exchanges, as hoisted. */
  tokens = 0;
  messages = 0;

  has(messageIndex: number): boolean {
    return this.#pins.has(messageIndex);
  }

  /** The pins in message order. */
  sorted(): PinAccount[] {
    return [...this.#pins.values()].sort((a, b) => a.message - b.message);
  }

  /**
   * Adds a pin (`sign` 1) or takes one away (−1); `exchange` is its exchange when the window may
   * evict it. Returns the change to the window's tokens when that exchange is in it.
   */
  account(pin: PinAccount, sign: 1 | -1, exchange: ExchangeRecord | undefined): number {
    if (sign === 1) this.#pins.set(pin.message, pin);
    else this.#pins.delete(pin.message);
    if (!exchange) return 0;
    const tokens = sign * pin.hoistedCount.tokens;
    exchange.pinTokens += tokens;
    exchange.pinMessages += sign;
    this.tokens += tokens;
    this.messages += sign;
    return -tokens;
  }

  get(messageIndex: number): PinAccount | undefined {
    return this.#pins.get(messageIndex);
  }
}

/** The index of the exchange holding a message, or null for a message before the first exchange. */
export function exchangeHolding(exchanges: readonly ExchangeRecord[], messageIndex: number): number | null {
  let low = 0;
  let high = exchanges.length - 1;
  let found: number | null = null;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if ((exchanges[middle] as ExchangeRecord).firstMessage <= messageIndex) {
      found = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found;
}
