import { z } from 'zod';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import { formatIssue } from './_format-issue.js';
import {
  type Message,
  messageSchema,
  type ToolDefinition,
  toolDefinitionSchema,
} from './message.js';

/** A mark or rewind label needs a visible character, as the CLI asks: a rewind names its mark by it. */
const newMessageSchema = messageSchema.refine(
  (message) => !(message.role === 'event' && (message.kind === 'mark' || message.kind === 'rewind') && message.label?.trim() === ''),
  { path: ['label'], message: 'a mark or rewind label needs at least one visible character, e.g. before-refactor' },
);
const messagesSchema = z.array(newMessageSchema);
const toolsSchema = z.array(toolDefinitionSchema);

function toError(root: string, error: z.ZodError, what: string): SlidingContextError {
  const [first, ...rest] = error.issues;
  const detail = first ? formatIssue(root, first) : `${root}: invalid`;
  const more =
    rest.length > 0 ? ` (and ${rest.length} more problem${rest.length > 1 ? 's' : ''})` : '';
  return new SlidingContextError('INVALID_MESSAGE', `Invalid ${what}: ${detail}${more}.`, {
    cause: error,
  });
}

/**
 * Validates untrusted input as an array of neutral messages.
 * @throws SlidingContextError `INVALID_MESSAGE` naming the message index and field, e.g.
 * `messages[7].content[1].toolCallId: expected string`.
 */
export function parseMessages(input: unknown, root = 'messages'): Message[] {
  const result = messagesSchema.safeParse(input, { reportInput: true });
  if (!result.success) throw toError(root, result.error, 'message');
  return result.data;
}

/**
 * Validates untrusted input as one neutral message; errors name its fields from `root`
 * (`prompt[3].content[1].toolCallId: expected string`).
 * @throws SlidingContextError `INVALID_MESSAGE`.
 */
export function parseMessage(input: unknown, root: string): Message {
  const result = newMessageSchema.safeParse(input, { reportInput: true });
  if (!result.success) throw toError(root, result.error, 'message');
  return result.data;
}

/** Validates untrusted input as tool definitions (`{ name, description?, inputSchema }`). */
export function parseToolDefinitions(input: unknown, root = 'tools'): ToolDefinition[] {
  const result = toolsSchema.safeParse(input, { reportInput: true });
  if (!result.success) throw toError(root, result.error, 'tool definition');
  return result.data;
}
