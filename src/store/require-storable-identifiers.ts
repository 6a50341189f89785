import { SlidingContextError } from '../errors/sliding-context-error.js';
import { toolCallsOf, toolResultsOf } from '../exchange/tool-parts.js';
import type { Message } from '../message/message.js';
import { hasUnstorableCharacters } from './stored-json.js';

/**
 * The longest tool call id, tool name or idempotency key the store keeps, in UTF-16 code units.
 * They are indexed, and a PostgreSQL btree entry holds at most about 2,700 bytes: 512 code
 * units are at most 1,536 bytes of UTF-8.
 */
export const MAX_IDENTIFIER_LENGTH = 512;

/** Why an identifier cannot be stored, or undefined when it can. */
function identifierProblem(value: string): string | undefined {
  if (value.length > MAX_IDENTIFIER_LENGTH) return `is ${value.length} characters long; the store keeps at most ${MAX_IDENTIFIER_LENGTH}`;
  if (hasUnstorableCharacters(value)) return 'holds a NUL character or a lone surrogate, which the store cannot index';
  return undefined;
}

/**
 * Checks what the store indexes by value before anything is written: each tool call id and tool
 * name, and the idempotency key.
 * @throws SlidingContextError `INVALID_MESSAGE` naming the message index and field, or
 * `INVALID_OPTION` for the idempotency key.
 */
export function requireStorableIdentifiers(messages: readonly Message[], idempotencyKey: string | undefined): void {
  for (const [messageIndex, message] of messages.entries()) {
    for (const { part, partIndex } of [...toolCallsOf(message), ...toolResultsOf(message)]) {
      for (const field of ['toolCallId', 'toolName'] as const) {
        const problem = identifierProblem(part[field]);
        if (problem !== undefined) {
          throw new SlidingContextError('INVALID_MESSAGE', `messages[${messageIndex}].content[${partIndex}].${field} ${problem}; use a shorter plain identifier.`);
        }
      }
    }
  }
  const problem = idempotencyKey === undefined ? undefined : identifierProblem(idempotencyKey);
  if (problem !== undefined) throw new SlidingContextError('INVALID_OPTION', `append: the idempotency key ${problem}; use a shorter plain key.`);
}
