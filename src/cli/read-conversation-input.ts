import { SlidingContextError } from '../errors/sliding-context-error.js';
import { readTranscript, TRANSCRIPT_FORMATS } from '../sources/read-transcript.js';
import { parseJsonLines, TRANSCRIPT_WIRE_FORMATS, type TranscriptFormat } from '../sources/transcript.js';
import { type WireFormat, wireFormats } from '../providers/wire-format.js';
import { type ConversationInput, isJsonLines, parseConversationInput } from '../import/conversation-input.js';
import type { CliIo } from './cli-io.js';
import { decodeInputText, type InputContent } from './decode-input-text.js';

export { type ConversationInput, isJsonLines, parseConversationInput, providerOfFormat, resolveTarget, withoutByteOrderMark } from '../import/conversation-input.js';

/**
 * Reads the text of a file, or of stdin for `-` or no path, as UTF-8.
 * @throws SlidingContextError `INPUT_UNREADABLE`; `INPUT_NOT_TEXT` for bytes that are not UTF-8, naming the first
 */
export async function readInputText(io: CliIo, path: string | undefined): Promise<string> {
  const name = path === undefined || path === '-' ? 'stdin' : path;
  let content: InputContent;
  try {
    content = name === 'stdin' ? await io.readStdin() : await io.readText(name);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new SlidingContextError('INPUT_UNREADABLE', `Cannot read ${name}: ${reason}.`, { cause: error });
  }
  return decodeInputText(content, name);
}

/** Checks a `--format` value. */
export function parseFormatOption(value: string | undefined): WireFormat | 'auto' {
  if (value === undefined || value === 'auto') return 'auto';
  const format = wireFormats.find((candidate) => candidate === value);
  if (!format) throw new SlidingContextError('INVALID_OPTION', `--format must be auto or one of ${[...wireFormats, ...TRANSCRIPT_FORMATS].join(', ')}; got "${value}".`);
  return format;
}

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
    format: TRANSCRIPT_WIRE_FORMATS[transcript.format],
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
