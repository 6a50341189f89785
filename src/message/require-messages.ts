import { SlidingContextError } from '../errors/sliding-context-error.js';
import { isRecord } from './is-record.js';
import { eventKinds, type Message } from './message.js';
import { parseMessage } from './parse-messages.js';

/** The part types array content may hold, by role. */
const PART_TYPES: Readonly<Record<string, ReadonlySet<string>>> = {
  user: new Set(['text', 'image', 'file', 'tool-result']),
  assistant: new Set(['text', 'file', 'reasoning', 'tool-call', 'tool-result']),
  tool: new Set(['tool-result']),
};

/** The string fields of each part type. */
const PART_STRINGS: Readonly<Record<string, readonly string[]>> = {
  'text': ['text'],
  'image': ['image'],
  'file': ['data', 'mediaType'],
  'reasoning': ['text'],
  'tool-call': ['toolCallId', 'toolName'],
  'tool-result': ['toolCallId', 'toolName'],
};

const EVENT_KINDS: ReadonlySet<unknown> = new Set(eventKinds);

function isOutput(output: unknown): boolean {
  if (!isRecord(output)) return false;
  switch (output.type) {
    case 'text':
    case 'error-text':
      return typeof output.value === 'string';
    case 'json':
    case 'error-json':
      return true;
    case 'content':
      return Array.isArray(output.value) && output.value.every((item) => isRecord(item) && (item.type !== 'text' || typeof item.text === 'string'));
    default:
      return false;
  }
}

function isPart(part: unknown, types: ReadonlySet<string>): boolean {
  if (!isRecord(part) || typeof part.type !== 'string' || !types.has(part.type)) return false;
  for (const field of PART_STRINGS[part.type] ?? []) if (typeof part[field] !== 'string') return false;
  return part.type !== 'tool-result' || isOutput(part.output);
}

/** True when a message has the shape the window reads: a known role, and content, parts and event fields of the right types. */
function isMessageShaped(message: unknown): boolean {
  if (!isRecord(message)) return false;
  const { role, content } = message;
  if (role === 'event') return EVENT_KINDS.has(message.kind) && (message.label === undefined || typeof message.label === 'string');
  if (role === 'system') return typeof content === 'string';
  const types = typeof role === 'string' ? PART_TYPES[role] : undefined;
  if (!types) return false;
  if (typeof content === 'string') return role !== 'tool';
  return Array.isArray(content) && content.every((part) => isPart(part, types));
}

/**
 * Checks, in time proportional to their parts, that `input` is an array of messages with the
 * shape the window reads (not every detail `parseMessages` checks, such as unknown fields); on
 * the first that is not, the schema says what is wrong with it.
 * @throws SlidingContextError `INVALID_MESSAGE` naming the index and field, e.g. `messages[3].content: expected string or array`
 */
export function requireMessages(input: unknown, root = 'messages'): asserts input is readonly Message[] {
  if (!Array.isArray(input)) {
    throw new SlidingContextError('INVALID_MESSAGE', `Invalid message: ${root}: expected an array of messages, received ${input === null ? 'null' : typeof input}.`);
  }
  for (const [index, message] of input.entries()) requireMessage(message, `${root}[${index}]`);
}

/**
 * {@link requireMessages} for one message, named `where` in the error.
 * @throws SlidingContextError `INVALID_MESSAGE`
 */
export function requireMessage(message: unknown, where: string): asserts message is Message {
  // The schema is the one authority; the check above only spares running it on a good message.
  if (!isMessageShaped(message)) parseMessage(message, where);
}
