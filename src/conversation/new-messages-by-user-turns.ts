import type { Message, ModelMessage } from '../message/message.js';
import { messageFingerprint } from './find-conversation-by-prefix.js';

/** The user messages that open a turn (text, not tool results), as fingerprints with their index. */
function userTurns(messages: readonly Message[]): { index: number; fingerprint: string }[] {
  return messages.flatMap((message, index) => (message.role === 'user' ? [{ index, fingerprint: messageFingerprint(message) }] : []));
}

/**
 * The messages of a request that a stored conversation lacks, when the request carries its
 * history in another shape than the one stored (a framework that merges a turn's messages, or a
 * memory that recalls only the latest ones): the request's user messages are aligned with the
 * stored ones (the longest run of them that ends the stored history and starts the request's),
 * and what follows the last aligned one's turn is new, from the next user message on.
 * With no user message aligned, the whole request is new (but for its system messages, when the
 * conversation has begun: its own system prompt stays).
 */
export function newMessagesByUserTurns(stored: readonly Message[], sent: readonly ModelMessage[]): ModelMessage[] {
  const storedTurns = userTurns(stored).map((turn) => turn.fingerprint);
  const sentTurns = userTurns(sent);
  for (let aligned = Math.min(storedTurns.length, sentTurns.length); aligned > 0; aligned--) {
    const tail = storedTurns.slice(storedTurns.length - aligned);
    if (!tail.every((fingerprint, index) => sentTurns[index]?.fingerprint === fingerprint)) continue;
    const next = sentTurns[aligned];
    return next === undefined ? [] : sent.slice(next.index);
  }
  return stored.length === 0 ? sent.slice() : sent.filter((message) => message.role !== 'system');
}

/**
 * {@link newMessagesByUserTurns} in memory, for a request that shares its first `shared` messages
 * with `known` (what the conversation holds, in order): when the last user message among them is
 * also the last one `known` holds, the turns before it align, and what is new starts at the
 * request's next user message. `undefined` otherwise (no user message shared, or `known` holds
 * later turns): the stored history is then needed.
 */
export function newMessagesAfterSharedTurn(known: readonly ModelMessage[], sent: readonly ModelMessage[], shared: number): ModelMessage[] | undefined {
  if (known.slice(shared).some((message) => message.role === 'user')) return undefined;
  let start = shared - 1;
  while (start >= 0 && sent[start]?.role !== 'user') start--;
  if (start < 0) return undefined;
  const next = sent.findIndex((message, index) => index > start && message.role === 'user');
  return next === -1 ? [] : sent.slice(next);
}
