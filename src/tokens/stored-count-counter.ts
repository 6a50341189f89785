import type { ModelMessage } from '../message/message.js';
import { sumTokenCounts } from './sum-token-counts.js';
import type { TokenCount, TokenCounter } from './token-counter.js';
import { SlidingContextError } from '../errors/sliding-context-error.js';

/**
 * A counter that answers from counts already made (stored with the messages, for this model)
 * and asks `fallback` for anything else. Without a fallback, every count asked for must be known.
 */
export function storedCountCounter(options: {
  /** The counts known, by message (a `Map`, or anything that gives them by message). */
  readonly messages: { get(message: ModelMessage): TokenCount | undefined };
  readonly preamble?: TokenCount | undefined;
  readonly fallback?: TokenCounter | undefined;
}): TokenCounter {
  const { fallback } = options;
  const missing = (what: string): never => {
    // A caller's bug: it must pass a fallback unless it checked every count is known.
    throw new SlidingContextError('NO_COUNTER', `No stored count for ${what}, and no counter to make one.`);
  };
  const counter: TokenCounter = {
    countPreamble: (input) => options.preamble ?? fallback?.countPreamble(input) ?? missing('the preamble'),
    countMessage: (input) => options.messages.get(input.message) ?? fallback?.countMessage(input) ?? missing(`a ${input.message.role} message`),
    count: (input) =>
      sumTokenCounts([
        counter.countPreamble({ ...input, system: input.request.system, tools: input.request.tools, toolChoice: input.request.toolChoice }),
        ...input.request.messages.map((message) => counter.countMessage({ ...input, message })),
      ]),
  };
  return counter;
}
