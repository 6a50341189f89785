import type { z } from 'zod';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import type { Message, ToolDefinition } from '../message/message.js';
import { toolArgumentsText } from '../message/tool-call-input.js';
import { formatIssue } from '../message/_format-issue.js';

/** A provider body taken apart into the neutral model, with everything else it carried. */
export interface ConvertedRequest {
  readonly system?: string | undefined;
  readonly tools?: ToolDefinition[] | undefined;
  readonly messages: Message[];
  /** The body's other top-level fields (model, temperature, tool_choice, …), restored on the way out. */
  readonly options: Readonly<Record<string, unknown>>;
}

/** How a conversion treats a message (or item) it cannot read. */
export interface ConversionOptions {
  /**
   * Called for each message left out, with its index in the body and why; without it the first
   * such error is thrown. The body's schema is still checked whole first.
   */
  readonly onRefused?: ((index: number, error: SlidingContextError) => void) | undefined;
}

/**
 * Runs `convert` on each entry in order. An entry that throws a `SlidingContextError` is
 * reported to `onRefused` and left out, when there is one; else the error is thrown.
 */
export function convertEach<Entry>(entries: readonly Entry[], convert: (entry: Entry, index: number) => void, options: ConversionOptions): void {
  entries.forEach((entry, index) => {
    try {
      convert(entry, index);
    } catch (error) {
      if (!options.onRefused || !(error instanceof SlidingContextError)) throw error;
      options.onRefused(index, error);
    }
  });
}

/** The error for a body that does not fit its format, naming the offending field. */
export function conversionError(path: string, problem: string, code: 'INVALID_MESSAGE' | 'INVALID_REQUEST_BODY' | 'ORPHANED_TOOL_RESULT' = 'INVALID_MESSAGE') {
  return new SlidingContextError(code, `${path}: ${problem}.`);
}

/**
 * Parses a body with its format's schema; a mismatch names the first offending field, e.g.
 * `messages[3].content[0].tool_use_id: expected string`.
 */
export function parseBody<Schema extends z.ZodType>(schema: Schema, body: unknown, format: string): z.infer<Schema> {
  const result = schema.safeParse(body, { reportInput: true });
  if (result.success) return result.data;
  const [first] = result.error.issues;
  const detail = first ? formatIssue('', first).replace(/^\./, '') : 'invalid';
  throw new SlidingContextError('INVALID_REQUEST_BODY', `The body is not a valid ${format} request: ${detail}.`, { cause: result.error });
}

/**
 * Parses tool-call arguments: empty is `{}`, JSON is its value, and text that is not JSON is kept
 * as it is, a string input (see `RAW_ARGUMENTS_KEY`), so that the call and its result are kept.
 */
export function parseArguments(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * Keeps the arguments text as sent when it is not what `JSON.stringify` would write (spacing,
 * key order, a JSON string), so that the body rebuilt is the same bytes and counts the same. Raw
 * text that is not JSON is the input itself, and needs no copy.
 */
export function rawArguments(text: string, input: unknown): { providerOptions?: { openai: { arguments: string } } } {
  const same = typeof input === 'string' ? input === text : text === JSON.stringify(input);
  return same ? {} : { providerOptions: { openai: { arguments: text } } };
}

/** The arguments text to send for a tool call: the original when kept, raw text as it is, else the input as JSON. */
export const argumentsText = toolArgumentsText;

/** Keeps the fields of `body` other than `taken`. */
export function otherFields(body: Readonly<Record<string, unknown>>, taken: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([key]) => !taken.includes(key)));
}
