import { SlidingContextError } from '../errors/sliding-context-error.js';
import type { Message } from '../message/message.js';
import { type UnansweredCall, unansweredCallsOf } from './aborted-results.js';
import { checkPairing, describePairingProblem, type PairingProblemCode } from './check-pairing.js';
import { startsExchange } from './detect-exchanges.js';

/**
 * The error for a message that is neither a system message nor a user message but comes before
 * the first user message: no window could start with it.
 */
export function leadInError(index: number, role: string): SlidingContextError {
  return new SlidingContextError(
    'INVALID_CONVERSATION',
    `messages[${index}].role: ${/^[aeio]/i.test(role) ? 'an' : 'a'} "${role}" message comes before the first user message; only system messages may precede it, so start the conversation with a user message.`,
  );
}

/** The error for a pairing problem, naming the message and part. */
export function pairingError(problem: { readonly code: Exclude<PairingProblemCode, 'MISSING_TOOL_RESULT'>; readonly messageIndex: number; readonly partIndex: number; readonly toolCallId: string }) {
  const description = describePairingProblem(problem.code, problem.messageIndex, problem.partIndex, problem.toolCallId);
  return new SlidingContextError(problem.code, `${description}; fix the conversation or repair its pairing explicitly.`);
}

/**
 * Checks that a window can be planned over these messages: only system messages (or events)
 * before the first user message, no orphaned tool result, no reused tool call id, no second
 * result for one call. Calls left unanswered are allowed, and returned: the window answers them.
 * @throws SlidingContextError `INVALID_CONVERSATION`, `ORPHANED_TOOL_RESULT`,
 * `DUPLICATE_TOOL_CALL_ID` or `DUPLICATE_TOOL_RESULT`, naming the message and part.
 */
export function requireValidConversation(messages: readonly Message[]): UnansweredCall[] {
  for (const [index, message] of messages.entries()) {
    if (startsExchange(message)) break;
    if (message.role !== 'system' && message.role !== 'event') throw leadInError(index, message.role);
  }
  const problems = checkPairing(messages);
  for (const problem of problems) {
    if (problem.code !== 'MISSING_TOOL_RESULT') throw pairingError({ ...problem, code: problem.code });
  }
  return unansweredCallsOf(messages, problems);
}
