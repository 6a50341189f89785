import { loadTokenCounter } from './load-token-counter.js';
import { type CountTarget, countTargetKey, type TokenCounter } from './token-counter.js';

/** Token counters by provider and model, each loaded once and shared (a load in progress too). */
export class TokenCounterCache {
  readonly #counters = new Map<string, Promise<TokenCounter>>();

  /** The counter for `target`, loaded on first use. */
  counterFor(target: CountTarget): Promise<TokenCounter> {
    const key = countTargetKey(target);
    let counter = this.#counters.get(key);
    if (!counter) {
      counter = loadTokenCounter({ targets: [target] });
      this.#counters.set(key, counter);
    }
    return counter;
  }
}
