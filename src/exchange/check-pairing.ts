import type { Message } from '../message/message.js';
import { detectExchanges } from './detect-exchanges.js';
import { toolPartsOf } from './tool-parts.js';
import { ToolPairing } from './tool-pairing.js';

/** What can be wrong with the pairing of tool calls and tool results. */
export type PairingProblemCode =
  | 'ORPHANED_TOOL_RESULT'
  | 'MISSING_TOOL_RESULT'
  | 'DUPLICATE_TOOL_CALL_ID'
  | 'DUPLICATE_TOOL_RESULT';

/** One pairing problem, located at `messages[messageIndex].content[partIndex]`. */
export interface PairingProblem {
  readonly code: PairingProblemCode;
  readonly messageIndex: number;
  readonly partIndex: number;
  readonly toolCallId: string;
  /** One sentence saying what is wrong and where. */
  readonly description: string;
}

/** One sentence saying what is wrong with a tool call or result, and where. */
export function describePairingProblem(code: PairingProblemCode, messageIndex: number, partIndex: number, toolCallId: string): string {
  const at = `messages[${messageIndex}].content[${partIndex}]`;
  switch (code) {
    case 'ORPHANED_TOOL_RESULT':
      return `${at}: tool result for "${toolCallId}" has no tool call before it in the same exchange`;
    case 'MISSING_TOOL_RESULT':
      return `${at}: tool call "${toolCallId}" has no tool result before the next user message`;
    case 'DUPLICATE_TOOL_CALL_ID':
      return `${at}: tool call id "${toolCallId}" is used by an earlier tool call that has no result yet`;
    case 'DUPLICATE_TOOL_RESULT':
      return `${at}: tool call "${toolCallId}" already has a tool result`;
  }
}

/**
 * Reports every tool result without its call, every call without its result, every second result
 * for one call, and every call whose id is still open. Calls and results pair within one exchange,
 * since exchanges are evicted whole, in part order: a result pairs with the nearest open call of
 * its id, and an id used again once its call was answered (or its exchange ended) is a new call.
 */
export function checkPairing(messages: readonly Message[]): PairingProblem[] {
  const problems: PairingProblem[] = [];
  const report = (code: PairingProblemCode, messageIndex: number, partIndex: number, id: string) =>
    problems.push({
      code,
      messageIndex,
      partIndex,
      toolCallId: id,
      description: describePairingProblem(code, messageIndex, partIndex, id),
    });
  const exchanges = detectExchanges(messages);
  const segments = [
    { first: 0, last: (exchanges[0]?.firstMessage ?? messages.length) - 1 },
    ...exchanges.map((exchange) => ({ first: exchange.firstMessage, last: exchange.lastMessage })),
  ];
  for (const segment of segments) {
    const pairing = new ToolPairing<{ messageIndex: number; partIndex: number }>();
    for (let messageIndex = segment.first; messageIndex <= segment.last; messageIndex++) {
      const message = messages[messageIndex];
      if (!message) continue;
      for (const { part, partIndex } of toolPartsOf(message)) {
        const code = part.type === 'tool-call' ? pairing.call(part.toolCallId, { messageIndex, partIndex }) : pairing.result(part.toolCallId).problem;
        if (code) report(code, messageIndex, partIndex, part.toolCallId);
      }
    }
    for (const [id, where] of pairing.unanswered()) report('MISSING_TOOL_RESULT', where.messageIndex, where.partIndex, id);
  }
  return problems.sort((a, b) => a.messageIndex - b.messageIndex || a.partIndex - b.partIndex);
}
