import { SlidingContextError } from '../errors/sliding-context-error.js';
import type { Message, ToolDefinition } from '../message/message.js';
import { parseJsonText } from '../message/parse-json-text.js';
import { readTranscript, TRANSCRIPT_FORMATS } from '../sources/read-transcript.js';
import { parseJsonLines, type TranscriptFormat } from '../sources/transcript.js';
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
  /** The agent transcript the conversation was read from, when it was one (`format` is then its wire format). */
  readonly transcript?: TranscriptFormat | undefined;
}

/** The byte order mark some editors put at the start of a UTF-8 file; JSON does not allow it. */
const BYTE_ORDER_MARK = '\uFEFF';

/** The text without a leading byte order mark. */
export function withoutByteOrderMark(text: string): string {
  return text.startsWith(BYTE_ORDER_MARK) ? text.slice(1) : text;
}

/**
 * True for JSON lines: two or more lines, the first a whole JSON object. One JSON document spread
 * over lines never starts with a complete one, so the whole text is not parsed twice to tell.
 */
export function isJsonLines(text: string): boolean {
  const start = text.trimStart();
  const end = start.indexOf('\n');
  if (end === -1 || start.slice(end).trim() === '') return false;
  try {
    const first: unknown = JSON.parse(start.slice(0, end));
    return typeof first === 'object' && first !== null && !Array.isArray(first);
  } catch {
    return false;
  }
}

/** Reads the text of a file, or of stdin for `-` or no path. */
export async function readInputText(io: CliIo, path: string | undefined): Promise<string> {
  const name = path === undefined || path === '-' ? 'stdin' : path;
  try {
    return withoutByteOrderMark(name === 'stdin' ? await io.readStdin() : await io.readText(name));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new SlidingContextError('INPUT_UNREADABLE', `Cannot read ${name}: ${reason}.`, { cause: error });
  }
}

/** Checks a `--format` value. */
export function parseFormatOption(value: string | undefined): WireFormat | 'auto' {
  if (value === undefined || value === 'auto') return 'auto';
  const format = wireFormats.find((candidate) => candidate === value);
  if (!format) throw new SlidingContextError('INVALID_OPTION', `--format must be auto or one of ${[...wireFormats, ...TRANSCRIPT_FORMATS].join(', ')}; got "${value}".`);
  return format;
}

/**
 * Parses JSON text as a conversation in `format` (detected when `auto`): a neutral message array
 * or `{ system?, tools?, messages }`, or a provider request body.
 * @throws SlidingContextError `INVALID_JSON`, `UNKNOWN_FORMAT`, `INVALID_REQUEST_BODY` or `INVALID_MESSAGE`, naming what and where;
 * `INPUT_NOT_TEXT` or `INPUT_TOO_DEEP` before anything walks the value.
 */
export function parseConversationInput(text: string, sourceName: string, format: WireFormat | 'auto' = 'auto'): ConversationInput {
  const json = parseJsonText(text, sourceName);
  const chosen = format === 'auto' ? detectFormat(json) : format;
  return { format: chosen, detected: format === 'auto', ...convertFrom(chosen, json) };
}

/** The wire format an agent transcript's messages are in, for counting and for the body rebuilt. */
const transcriptWireFormat: Readonly<Record<TranscriptFormat, WireFormat>> = { 'claude-code': 'anthropic', 'codex': 'openai-responses' };

/**
 * Reads what `window` and `count` are given: a provider body or message array, or an agent
 * transcript (Claude Code session, Codex rollout: JSON lines) taken apart as `import` does, its
 * broken lines reported on stderr by number and the rest read. `--format` names either kind.
 * @throws SlidingContextError `INPUT_UNREADABLE`, `INVALID_OPTION` for an unknown `--format`, `UNKNOWN_FORMAT` or
 * `INVALID_REQUEST_BODY` when the input is neither, saying what it is.
 */
export async function readConversationInput(io: CliIo, file: string | undefined, formatOption: string | undefined): Promise<ConversationInput> {
  const transcriptFormat = TRANSCRIPT_FORMATS.find((format) => format === formatOption);
  const format = transcriptFormat ? 'auto' : parseFormatOption(formatOption);
  const text = await readInputText(io, file);
  const source = file === undefined || file === '-' ? 'stdin' : file;
  if (!transcriptFormat && !isJsonLines(text)) return parseConversationInput(text, source, format);
  if (format !== 'auto') {
    throw new SlidingContextError('INVALID_REQUEST_BODY', `${source} is JSON lines, not one ${format} body; leave --format out to read it as a Claude Code session or a Codex rollout.`);
  }
  const transcript = readTranscript(parseJsonLines(text.split(/\r?\n/)), { format: transcriptFormat, source });
  for (const broken of transcript.brokenLines) io.stderr.write(`line ${broken.line}: skipped, ${broken.reason}\n`);
  return {
    format: transcriptWireFormat[transcript.format],
    detected: transcript.detected,
    system: transcript.system,
    tools: transcript.tools,
    messages: transcript.messages,
    options: transcript.options,
    transcript: transcript.format,
  };
}

/**
 * How a command names its input, by the wire format its `--json` gives as `format`, and the
 * transcript it was read from as `transcript`: `anthropic (detected)`, `anthropic (claude-code
 * transcript, detected)`.
 */
export function describeInput(input: ConversationInput): string {
  const notes = [...(input.transcript === undefined ? [] : [`${input.transcript} transcript`]), ...(input.detected ? ['detected'] : [])];
  return `${input.format}${notes.length > 0 ? ` (${notes.join(', ')})` : ''}`;
}

/** The `--json` fields that name the input: `format`, and `transcript` when it was one. */
export function inputJson(input: ConversationInput): { format: WireFormat; transcript?: TranscriptFormat } {
  return { format: input.format, ...(input.transcript === undefined ? {} : { transcript: input.transcript }) };
}

/** The provider whose API a wire format is, if one. */
export const providerOfFormat: Readonly<Record<WireFormat, string | undefined>> = {
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
