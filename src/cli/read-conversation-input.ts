import { z } from 'zod';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import type { Message, ToolDefinition } from '../message/message.js';
import { parseMessages, parseToolDefinitions } from '../message/parse-messages.js';
import type { CliIo } from './cli-io.js';

/** A conversation as the CLI reads it: a message array, or an object with system and tools. */
export interface ConversationInput {
  readonly system?: string | undefined;
  readonly tools?: ToolDefinition[] | undefined;
  readonly messages: Message[];
}

const envelopeSchema = z.object({
  system: z.unknown().optional(),
  tools: z.unknown().optional(),
  messages: z.unknown(),
});

/** Reads the text of a file, or of stdin for `-` or no path. */
export async function readInputText(io: CliIo, path: string | undefined): Promise<string> {
  const name = path === undefined || path === '-' ? 'stdin' : path;
  try {
    return name === 'stdin' ? await io.readStdin() : await io.readText(name);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new SlidingContextError('INVALID_INPUT', `Cannot read ${name}: ${reason}.`, {
      cause: error,
    });
  }
}

/**
 * Parses JSON text as a conversation: either an array of messages or
 * `{ system?, tools?, messages }`.
 * @throws SlidingContextError `INVALID_INPUT` or `INVALID_MESSAGE`, naming what and where.
 */
export function parseConversationInput(text: string, sourceName: string): ConversationInput {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new SlidingContextError('INVALID_INPUT', `${sourceName} is not valid JSON: ${reason}.`, {
      cause: error,
    });
  }
  if (Array.isArray(json)) return { messages: parseMessages(json) };
  const envelope = envelopeSchema.safeParse(json);
  if (!envelope.success || envelope.data.messages === undefined) {
    throw new SlidingContextError(
      'INVALID_INPUT',
      `${sourceName} must hold an array of messages or an object { system?, tools?, messages }.`,
    );
  }
  const { system, tools, messages } = envelope.data;
  if (system !== undefined && typeof system !== 'string') {
    throw new SlidingContextError('INVALID_INPUT', `system: expected string in ${sourceName}.`);
  }
  return {
    system,
    tools: tools === undefined ? undefined : parseToolDefinitions(tools),
    messages: parseMessages(messages),
  };
}
