import type { Message, ModelMessage, ToolMessage } from '../message/message.js';
import type { PairingProblem } from './check-pairing.js';
import { toolCallsOf } from './tool-parts.js';

/** A tool call left without a result, and the assistant message that made it. */
export interface UnansweredCall {
  readonly toolCallId: string;
  readonly toolName: string;
  /** Index of the assistant message holding the call. */
  readonly callMessage: number;
}

/** Key under `providerOptions` for sliding-context's own flags. */
export const OWN_PROVIDER_OPTIONS_KEY = 'sliding-context';

/**
 * The explicit answer to calls an interrupted exchange left open: one tool message with an
 * `aborted` error result per call, flagged synthetic, with an id derived from the first call.
 */
export function buildAbortedResultMessage(calls: readonly UnansweredCall[]): ToolMessage {
  return {
    role: 'tool',
    id: `aborted:${calls[0]?.toolCallId ?? ''}`,
    content: calls.map((call) => ({
      type: 'tool-result',
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      output: { type: 'error-text', value: 'aborted' },
    })),
    providerOptions: { [OWN_PROVIDER_OPTIONS_KEY]: { synthetic: true } },
  };
}

/** True for a message that only carries tool results: a tool message or an Anthropic-style user one. */
export function carriesOnlyToolResults(message: ModelMessage): boolean {
  if (message.role === 'tool') return true;
  if (message.role !== 'user' || typeof message.content === 'string') return false;
  return message.content.length > 0 && message.content.every((part) => part.type === 'tool-result');
}

/** The calls that `MISSING_TOOL_RESULT` problems point at, in message and part order. */
export function unansweredCallsOf(messages: readonly Message[], problems: readonly PairingProblem[]): UnansweredCall[] {
  return problems.flatMap((problem) => {
    if (problem.code !== 'MISSING_TOOL_RESULT') return [];
    const message = messages[problem.messageIndex];
    const call = message && toolCallsOf(message).find((candidate) => candidate.partIndex === problem.partIndex);
    return call ? [{ toolCallId: call.part.toolCallId, toolName: call.part.toolName, callMessage: problem.messageIndex }] : [];
  });
}

/** Groups unanswered calls by the index of the message that made them. */
export function groupByCallMessage(calls: Iterable<UnansweredCall>): ReadonlyMap<number, readonly UnansweredCall[]> {
  const groups = new Map<number, UnansweredCall[]>();
  for (const call of calls) {
    const group = groups.get(call.callMessage);
    if (group) group.push(call);
    else groups.set(call.callMessage, [call]);
  }
  return groups;
}

/** The groups made by messages `first..last`, in message order. */
export function groupsBetween(
  groups: ReadonlyMap<number, readonly UnansweredCall[]>,
  first: number,
  last: number,
): (readonly UnansweredCall[])[] {
  const between: (readonly UnansweredCall[])[] = [];
  for (let index = first; index <= last; index++) {
    const group = groups.get(index);
    if (group) between.push(group);
  }
  return between;
}

/**
 * Copies `messages[first..last]`, inserting each synthetic result message right after the run of
 * tool results that follows its assistant message, so that the request stays valid to send.
 */
export function insertAbortedResults(
  messages: readonly ModelMessage[],
  first: number,
  last: number,
  groups: readonly (readonly UnansweredCall[])[],
): ModelMessage[] {
  const output: ModelMessage[] = [];
  let next = 0;
  let pending: ToolMessage | undefined;
  for (let index = first; index <= last; index++) {
    const message = messages[index] as ModelMessage;
    if (pending && !carriesOnlyToolResults(message)) {
      output.push(pending);
      pending = undefined;
    }
    output.push(message);
    const group = groups[next];
    if (group && group[0]?.callMessage === index) {
      pending = buildAbortedResultMessage(group);
      next++;
    }
  }
  if (pending) output.push(pending);
  return output;
}
