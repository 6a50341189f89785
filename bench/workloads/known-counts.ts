import type { ModelMessage } from '../../src/message/message.js';
import type { TokenCount, TokenCounter } from '../../src/tokens/token-counter.js';

/**
 * A counter that answers from counts made beforehand for the messages it knows (a history set
 * up once), and counts any other message, the turns, with `counter`.
 */
export function withKnownCounts(counter: TokenCounter, known: ReadonlyMap<ModelMessage, TokenCount>): TokenCounter {
  return {
    count: (input) => counter.count(input),
    countPreamble: (input) => counter.countPreamble(input),
    countMessage: (input) => known.get(input.message) ?? counter.countMessage(input),
  };
}
