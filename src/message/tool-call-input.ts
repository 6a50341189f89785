import type { ProviderOptions } from './message.js';
import { toJson } from './to-json.js';

/**
 * Tool-call arguments that are not valid JSON (a model cut them short, say) are kept as they
 * came: the call's `input` is the raw argument text, a string, as the AI SDK keeps an invalid
 * tool call. Wire formats with an arguments string send that text unchanged; those whose input
 * must be an object (Anthropic `tool_use.input`, Gemini `functionCall.args`) send
 * `{ "_raw_arguments": "<the text>" }`, which converting back turns into the string again.
 */
export const RAW_ARGUMENTS_KEY = '_raw_arguments';

/**
 * The arguments text of a call as sent where arguments are a string (OpenAI): the text as first
 * received when it was kept (`providerOptions.openai.arguments`), a string input as it is (raw
 * text that is not JSON), else the input as JSON.
 */
export function toolArgumentsText(part: { readonly input: unknown; readonly providerOptions?: ProviderOptions | undefined }): string {
  const raw = part.providerOptions?.openai?.arguments;
  if (typeof raw === 'string') return raw;
  return typeof part.input === 'string' ? part.input : toJson(part.input ?? {});
}

/** A call's input where it must be an object: raw argument text as `{ _raw_arguments: text }`, anything else as it is. */
export function objectToolInput(input: unknown): unknown {
  return typeof input === 'string' ? { [RAW_ARGUMENTS_KEY]: input } : input;
}

/** The neutral input for an object a wire format carried: `{ _raw_arguments: text }` alone is the raw text again. */
export function neutralToolInput(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const entries = Object.entries(input);
  const [only] = entries;
  return entries.length === 1 && only?.[0] === RAW_ARGUMENTS_KEY && typeof only[1] === 'string' ? only[1] : input;
}
