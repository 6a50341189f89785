import type { ModelMessage } from '../message/message.js';
import { groupByCallMessage, groupsBetween, insertAbortedResults, unansweredCallsOf } from './aborted-results.js';
import { checkPairing } from './check-pairing.js';
import { detectExchanges } from './detect-exchanges.js';

/** One change `repairPairing` made, located in the messages it was given. */
export interface PairingRepair {
  readonly action: 'dropped-orphaned-result' | 'dropped-duplicate-result' | 'added-aborted-result';
  readonly messageIndex: number;
  readonly partIndex: number;
  readonly toolCallId: string;
  /** One sentence: what was changed and where. */
  readonly description: string;
}

/**
 * Repairs tool-call pairing explicitly: drops tool results whose call is not in their exchange
 * and second results for one call, and answers every unanswered call with a synthetic `aborted`
 * result right after it. Returns the repaired messages and every change made; reused tool call
 * ids are left alone, since no repair can tell which call a result meant.
 */
export function repairPairing(messages: readonly ModelMessage[]): { messages: ModelMessage[]; repairs: PairingRepair[] } {
  const problems = checkPairing(messages);
  const repairs: PairingRepair[] = [];
  const drop = new Set<string>();
  for (const problem of problems) {
    if (problem.code !== 'ORPHANED_TOOL_RESULT' && problem.code !== 'DUPLICATE_TOOL_RESULT') continue;
    drop.add(`${problem.messageIndex}:${problem.partIndex}`);
    const action = problem.code === 'ORPHANED_TOOL_RESULT' ? 'dropped-orphaned-result' : 'dropped-duplicate-result';
    const what = problem.code === 'ORPHANED_TOOL_RESULT' ? 'orphaned tool result' : 'second tool result';
    repairs.push({ action, messageIndex: problem.messageIndex, partIndex: problem.partIndex, toolCallId: problem.toolCallId, description: `messages[${problem.messageIndex}].content[${problem.partIndex}]: dropped the ${what} for "${problem.toolCallId}"` });
  }
  const unanswered = groupByCallMessage(unansweredCallsOf(messages, problems));
  for (const { code, messageIndex, partIndex, toolCallId } of problems) {
    if (code !== 'MISSING_TOOL_RESULT') continue;
    const description = `messages[${messageIndex}].content[${partIndex}]: answered the unanswered call "${toolCallId}" with a synthetic "aborted" result`;
    repairs.push({ action: 'added-aborted-result', messageIndex, partIndex, toolCallId, description });
  }
  if (repairs.length === 0) return { messages: [...messages], repairs };

  // Drop the results first, keeping each message's index so that the calls stay where they were.
  const cleaned: ModelMessage[] = messages.map((message, messageIndex): ModelMessage => {
    if (message.role === 'system' || typeof message.content === 'string') return message;
    if (!message.content.some((_part, partIndex) => drop.has(`${messageIndex}:${partIndex}`))) return message;
    return { ...message, content: message.content.filter((_part, partIndex) => !drop.has(`${messageIndex}:${partIndex}`)) } as ModelMessage;
  });
  const output: ModelMessage[] = [];
  const exchanges = detectExchanges(cleaned);
  const segments = [
    { first: 0, last: (exchanges[0]?.firstMessage ?? cleaned.length) - 1 },
    ...exchanges.map((exchange) => ({ first: exchange.firstMessage, last: exchange.lastMessage })),
  ];
  for (const { first, last } of segments) {
    if (last < first) continue;
    for (const message of insertAbortedResults(cleaned, first, last, groupsBetween(unanswered, first, last))) output.push(message);
  }
  // A message left with no content at all (it held only dropped results) goes too.
  return { messages: output.filter((message) => message.role === 'system' || typeof message.content === 'string' || message.content.length > 0), repairs };
}
