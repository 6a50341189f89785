import { SlidingContextError } from '../errors/sliding-context-error.js';
import { type WireFormat, wireFormats } from '../providers/wire-format-names.js';
import { readTranscript, TRANSCRIPT_FORMATS } from '../sources/read-transcript.js';
import { parseJsonLines, type Transcript, type TranscriptFormat } from '../sources/transcript.js';
import { type ConversationInput, isJsonLines, parseConversationBody, parseConversationInput, withoutByteOrderMark } from './conversation-input.js';
import { isExportHeader, readExportLines } from './export-lines.js';

/**
 * What an import reads: JSON text (a provider body, a message array, or JSON lines), the lines
 * of a JSONL file (a transcript or an export), or a body already parsed. `source` names it in
 * errors (default `input`).
 */
export type ImportSource =
  | { readonly text: string; readonly source?: string | undefined }
  | { readonly lines: readonly string[]; readonly source?: string | undefined }
  | { readonly body: unknown; readonly source?: string | undefined };

/**
 * The format an import reads: `auto` (detected, the default), a wire format, an agent transcript
 * (`claude-code`, `codex`), or `jsonl` (a transcript or an export, detected).
 */
export type ImportFormat = WireFormat | TranscriptFormat | 'jsonl' | 'auto';

/** A conversation ready to store: a provider body or message array, an export read back, or an agent transcript. */
export type ImportedConversation =
  | (ConversationInput & { /** When each message was written, for an export read back. */ readonly createdAt?: readonly (Date | undefined)[] | undefined })
  | (Transcript & { readonly detected: boolean });

/**
 * Checks a format name.
 * @throws SlidingContextError `INVALID_OPTION` naming `label` and the formats there are
 */
export function parseImportFormat(value: string | undefined, label = 'format'): ImportFormat {
  if (value === undefined) return 'auto';
  const format = ([...wireFormats, ...TRANSCRIPT_FORMATS, 'jsonl', 'auto'] as const).find((candidate) => candidate === value);
  if (!format) throw new SlidingContextError('INVALID_OPTION', `${label} must be auto or one of ${[...wireFormats, ...TRANSCRIPT_FORMATS, 'jsonl'].join(', ')}; got "${value}".`);
  return format;
}

/** Lines of a JSONL file: an export when its first line is an export header, else a transcript. */
function readLines(lines: readonly string[], source: string, format: ImportFormat, strict: boolean | undefined): ImportedConversation {
  if (isExportHeader(lines[0])) return readExportLines(lines, source);
  const transcriptFormat = TRANSCRIPT_FORMATS.find((each) => each === format);
  return readTranscript(parseJsonLines(lines, source), { format: transcriptFormat, strict, source });
}

/** The wire format named, else `auto`: a transcript or `jsonl` is not one body. */
function bodyFormat(format: ImportFormat): WireFormat | 'auto' {
  return wireFormats.find((each) => each === format) ?? 'auto';
}

/**
 * Reads an import's input in `format`: JSONL lines as an export or a transcript (its broken lines
 * kept, or refused with `strict`), text as JSON lines when it is, else as one body.
 * @throws SlidingContextError `INVALID_JSON`, `UNKNOWN_FORMAT`, `INVALID_REQUEST_BODY`, `INVALID_MESSAGE`,
 * `INVALID_TRANSCRIPT` (with `strict`, the first broken line), `INPUT_NOT_TEXT` or `INPUT_TOO_DEEP`, naming where
 */
export function readImportInput(input: ImportSource, format: ImportFormat = 'auto', strict?: boolean): ImportedConversation {
  const source = input.source ?? 'input';
  const isTranscript = TRANSCRIPT_FORMATS.some((each) => each === format);
  if ('lines' in input) return readLines(input.lines, source, format, strict);
  if ('body' in input) return parseConversationBody(input.body, bodyFormat(format));
  const text = withoutByteOrderMark(input.text);
  if (isTranscript || format === 'jsonl') return readLines(text.split('\n'), source, format, strict);
  if (format === 'auto' && isExportHeader(text.slice(0, text.indexOf('\n')))) return readExportLines(text.split('\n'), source);
  if (format === 'auto' && isJsonLines(text)) return readTranscript(parseJsonLines(text.split('\n'), source), { strict, source });
  return parseConversationInput(text, source, bodyFormat(format));
}
