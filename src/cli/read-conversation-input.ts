import { SlidingContextError } from '../errors/sliding-context-error.js';
import type { Message, ToolDefinition } from '../message/message.js';
import { parseJsonText } from '../message/parse-json-text.js';
import { convertFrom, detectFormat, type WireFormat, wireFormats } from '../providers/wire-format.js';
import type { CliIo } from './cli-io.js';

/** A conversation as the CLI reads it, with the format it came in. */
export interface ConversationInput {
  readonly format: WireFormat;
  /** True when the format was detected rather than given with `--format`. */
  readonly detected: boolean;
  readonly system?: string | undefined;
  readonly tools?: ToolDefinition[] | undefined;
  readonly messages: Message[];
  /** The body's other fields, restored when the body is rebuilt. */
  readonly options: Readonly<Record<string, unknown>>;
}

/** Reads the text of a file, or of stdin for `-` or no path. */
export async function readInputText(io: CliIo, path: string | undefined): Promise<string> {
  const name = path === undefined || path === '-' ? 'stdin' : path;
  try {
    return name === 'stdin' ? await io.readStdin() : await io.readText(name);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new SlidingContextError('INVALID_INPUT', `Cannot read ${name}: ${reason}.`, { cause: error });
  }
}

/** Checks a `--format` value. */
export function parseFormatOption(value: string | undefined): WireFormat | 'auto' {
  if (value === undefined || value === 'auto') return 'auto';
  const format = wireFormats.find((candidate) => candidate === value);
  if (!format) throw new SlidingContextError('INVALID_INPUT', `--format must be auto or one of ${wireFormats.join(', ')}; got "${value}".`);
  return format;
}

/**
 * Parses JSON text as a conversation in `format` (detected when `auto`): a neutral message array
 * or `{ system?, tools?, messages }`, or a provider request body.
 * @throws SlidingContextError `INVALID_INPUT` or `INVALID_MESSAGE`, naming what and where;
 * `INPUT_NOT_TEXT` or `INPUT_TOO_DEEP` before anything walks the value.
 */
export function parseConversationInput(text: string, sourceName: string, format: WireFormat | 'auto' = 'auto'): ConversationInput {
  const json = parseJsonText(text, sourceName);
  const chosen = format === 'auto' ? detectFormat(json) : format;
  return { format: chosen, detected: format === 'auto', ...convertFrom(chosen, json) };
}

const providerOfFormat: Readonly<Record<WireFormat, string | undefined>> = {
  'neutral': undefined,
  'openai-chat': 'openai',
  'openai-responses': 'openai',
  'anthropic': 'anthropic',
  'google': 'google',
  'ai-sdk': undefined,
};

/**
 * The provider and model to count for: the flags when given, else what the body says (its
 * format and `model`; an AI SDK `provider/model` id is split), else openai and gpt-4o.
 */
export function resolveTarget(input: ConversationInput, flags: { provider?: string | undefined; model?: string | undefined }) {
  const bodyModel = typeof input.options.model === 'string' ? input.options.model : undefined;
  const [gatewayProvider, gatewayModel] = bodyModel?.includes('/') ? bodyModel.split('/', 2) : [undefined, bodyModel];
  return {
    provider: flags.provider ?? providerOfFormat[input.format] ?? gatewayProvider ?? 'openai',
    model: flags.model ?? gatewayModel ?? 'gpt-4o',
  };
}
