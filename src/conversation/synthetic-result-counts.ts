import { buildAbortedResultMessage, groupByCallMessage, type UnansweredCall } from '../exchange/aborted-results.js';
import { requireValidConversation } from '../exchange/require-valid-conversation.js';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import { isRecord } from '../message/is-record.js';
import type { ModelMessage } from '../message/message.js';
import { type CountTarget, countTargetKey, type TokenCount, type TokenCounter } from '../tokens/token-counter.js';

/**
 * The count of one synthetic `aborted` result message, the answer planning adds for calls an
 * interrupted exchange left open, as kept in an agent's meta: the calls it answers, in order.
 */
export interface StoredSyntheticResult extends TokenCount {
  readonly calls: readonly { readonly toolCallId: string; readonly toolName: string }[];
}

/** The key of the meta entry: the target the counts were made for and one entry per message. */
const META_KEY = 'syntheticResultCounts';

/**
 * The meta entry that keeps the counts of the synthetic results for `unanswered` (the calls a
 * history leaves open, as `requireValidConversation` gives them), made by `counter` for `target`;
 * none when no call is open. Stored with a new agent, they let its window be planned from stored
 * counts alone, without loading a tokenizer.
 */
export function syntheticResultCountsMeta(unanswered: readonly UnansweredCall[], counter: TokenCounter, target: CountTarget): Record<string, unknown> {
  if (unanswered.length === 0) return {};
  const results = [...groupByCallMessage(unanswered).values()].map((group) => {
    const { tokens, exact, method } = counter.countMessage({ ...target, message: buildAbortedResultMessage(group) });
    return { calls: group.map(({ toolCallId, toolName }) => ({ toolCallId, toolName })), tokens, exact, method };
  });
  return { [META_KEY]: { target: countTargetKey(target), results } };
}

/** The counts {@link syntheticResultCountsMeta} kept in `meta`, when they were made for `target`. */
export function storedSyntheticResults(meta: Readonly<Record<string, unknown>>, target: CountTarget): StoredSyntheticResult[] {
  const stored = meta[META_KEY];
  if (!isRecord(stored) || stored.target !== countTargetKey(target) || !Array.isArray(stored.results)) return [];
  return stored.results.flatMap((entry: unknown) => {
    if (!isRecord(entry) || typeof entry.tokens !== 'number' || !Array.isArray(entry.calls)) return [];
    const calls = entry.calls.flatMap((call: unknown) =>
      isRecord(call) && typeof call.toolCallId === 'string' && typeof call.toolName === 'string' ? [{ toolCallId: call.toolCallId, toolName: call.toolName }] : [],
    );
    if (calls.length !== entry.calls.length || calls.length === 0) return [];
    return [{ calls, tokens: entry.tokens, exact: entry.exact === true, method: typeof entry.method === 'string' ? entry.method : 'unknown' }];
  });
}

/** A message as a key: the synthetic results planning builds are compared whole. */
const keyOf = (message: ModelMessage) => JSON.stringify(message);

/**
 * A counter that counts only the synthetic results planning `messages` adds, from `stored`; undefined
 * when one of them is not stored (the model's counter must then be loaded). It answers nothing
 * else, so it serves as the fallback of a counter whose other counts are all known. `check` is
 * `requireValidConversation`, or one that answers the same (an `ExtendingConversationCheck`).
 * `provisional`: a synthetic result not stored is counted as 0 tokens instead of refused, for a
 * `WindowState` that appends the messages one by one: it counts the results a call lacks until
 * they come (its count taken back then), and only those still lacking at the end, all stored, stay.
 * @throws SlidingContextError as `requireValidConversation` does, for messages that do not pair up
 */
export function storedSyntheticResultCounter(
  messages: readonly ModelMessage[],
  stored: readonly StoredSyntheticResult[],
  check: { check(messages: readonly ModelMessage[]): UnansweredCall[] } = { check: requireValidConversation },
  provisional = false,
): TokenCounter | undefined {
  const groups = [...groupByCallMessage(check.check(messages)).values()];
  if (groups.length > 0 && stored.length === 0) return undefined;
  const counts = new Map(stored.map((entry) => [keyOf(buildAbortedResultMessage(entry.calls.map((call) => ({ ...call, callMessage: 0 })))), entry]));
  const needed = groups.map((group) => keyOf(buildAbortedResultMessage(group)));
  if (!needed.every((key) => counts.has(key))) return undefined;
  const missing = (what: string): never => {
    throw new SlidingContextError('NO_COUNTER', `No stored count for ${what}, and no counter to make one.`);
  };
  const countMessage = (input: { readonly message: ModelMessage }): TokenCount => {
    const entry = counts.get(keyOf(input.message));
    if (entry) return { tokens: entry.tokens, exact: entry.exact, method: entry.method };
    return provisional ? { tokens: 0, exact: false, method: 'provisional' } : missing(`a ${input.message.role} message`);
  };
  return { countMessage, countPreamble: () => missing('the preamble'), count: () => missing('a request') };
}
