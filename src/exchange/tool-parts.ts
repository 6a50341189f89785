import type { Message, ToolCallPart, ToolResultPart } from '../message/message.js';

/** A part together with its index in the message's content array. */
export interface IndexedPart<Part> {
  readonly part: Part;
  readonly partIndex: number;
}

function partsOf(message: Message) {
  if (
    message.role === 'system' ||
    message.role === 'event' ||
    typeof message.content === 'string'
  ) {
    return [];
  }
  return message.content;
}

/** The tool-call parts of a message, in order. */
export function toolCallsOf(message: Message): IndexedPart<ToolCallPart>[] {
  const calls: IndexedPart<ToolCallPart>[] = [];
  partsOf(message).forEach((part, partIndex) => {
    if (part.type === 'tool-call') calls.push({ part, partIndex });
  });
  return calls;
}

/** The tool-result parts of a message, in order. */
export function toolResultsOf(message: Message): IndexedPart<ToolResultPart>[] {
  const results: IndexedPart<ToolResultPart>[] = [];
  partsOf(message).forEach((part, partIndex) => {
    if (part.type === 'tool-result') results.push({ part, partIndex });
  });
  return results;
}

/** The tool-call and tool-result parts of a message, in part order. */
export function toolPartsOf(message: Message): IndexedPart<ToolCallPart | ToolResultPart>[] {
  const parts: IndexedPart<ToolCallPart | ToolResultPart>[] = [];
  partsOf(message).forEach((part, partIndex) => {
    if (part.type === 'tool-call' || part.type === 'tool-result') parts.push({ part, partIndex });
  });
  return parts;
}
