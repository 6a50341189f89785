import { ZodError, type z } from 'zod';
import { isSlidingContextError, SlidingContextError } from '../errors/sliding-context-error.js';
import { formatIssue } from '../message/_format-issue.js';
import { isRecord } from '../message/is-record.js';
import type { Message, ToolDefinition } from '../message/message.js';
import { looksBinary, printableText, requireJsonDepth } from '../message/parse-json-text.js';
import type { ConversionOptions, ConvertedRequest } from '../providers/conversion.js';
import type { WireFormat } from '../providers/wire-format-names.js';

/** One non-blank line of a JSONL transcript, parsed, with its 1-based line number. */
export interface TranscriptLine {
  readonly line: number;
  readonly record: Record<string, unknown>;
}

/** A line that could not be imported, and why. */
export interface BrokenLine {
  readonly line: number;
  readonly reason: string;
}

/** The agent transcript formats that `import` reads. */
export type TranscriptFormat = 'claude-code' | 'codex';

/** The wire format each transcript's messages are in: what its agent's requests are built in. */
export const TRANSCRIPT_WIRE_FORMATS: Readonly<Record<TranscriptFormat, WireFormat>> = { 'claude-code': 'anthropic', 'codex': 'openai-responses' };

/** A transcript taken apart into the neutral model. */
export interface Transcript {
  readonly format: TranscriptFormat;
  readonly system?: string | undefined;
  readonly tools?: ToolDefinition[] | undefined;
  readonly messages: Message[];
  readonly options: Readonly<Record<string, unknown>>;
  readonly brokenLines: readonly BrokenLine[];
  /** Lines left out on purpose, by reason (`side-chain`, `abandoned branch`, `progress`, …). */
  readonly skipped: Readonly<Record<string, number>>;
}

/**
 * Parses JSONL from `source`: each non-blank line one JSON object; any other line is broken. A
 * binary file or a line nested too deep for the checks that follow refuses the whole input.
 * @throws SlidingContextError `INPUT_NOT_TEXT` or `INPUT_TOO_DEEP`, naming the line
 */
export function parseJsonLines(lines: Iterable<string>, source = 'input'): { records: TranscriptLine[]; broken: BrokenLine[] } {
  const records: TranscriptLine[] = [];
  const broken: BrokenLine[] = [];
  let line = 0;
  for (const each of lines) {
    line++;
    // A byte order mark before the first line is the file's encoding, not part of the JSON.
    const text = line === 1 && each.startsWith('\uFEFF') ? each.slice(1) : each;
    if (text.trim() === '') continue;
    if (looksBinary(text)) {
      throw new SlidingContextError('INPUT_NOT_TEXT', `${source} is not text (line ${line} holds binary bytes); expected JSON lines: a Claude Code session or a Codex rollout.`);
    }
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch (error) {
      broken.push({ line, reason: `not valid JSON (${printableText(error instanceof Error ? error.message : String(error))})` });
      continue;
    }
    requireJsonDepth(text, source, line);
    if (isRecord(record)) records.push({ line, record });
    else broken.push({ line, reason: 'not a JSON object' });
  }
  return { records, broken };
}

/** A run of provider-shaped entries converted together; each entry knows the line it came from. */
export interface Segment<Entry> {
  entries: { readonly line: number; readonly entry: Entry }[];
}

type ZodIssue = z.core.$ZodIssue;

/**
 * Each entry a body's schema refused, by index (`messages[i]` or `input[i]`), with the reason in
 * the words of the refusal. One schema check reports every bad entry, so they go in one pass.
 */
function refusedBySchema(error: unknown): Map<number, string> {
  const refused = new Map<number, string>();
  if (!isSlidingContextError(error) || !(error.cause instanceof ZodError)) return refused;
  // "The body is not a valid … request: " then the first issue: each entry gets its own.
  const heading = error.message.slice(0, error.message.indexOf(': ') + 2);
  const visit = (issues: readonly ZodIssue[], parentPath: readonly PropertyKey[]) => {
    for (const issue of issues) {
      const path = [...parentPath, ...issue.path];
      const [key, index] = path;
      if (key !== 'messages' && key !== 'input') continue;
      if (typeof index === 'number') {
        if (!refused.has(index)) refused.set(index, `${heading}${formatIssue('', issue, parentPath).replace(/^\./, '')}.`);
      } else if (issue.code === 'invalid_union') {
        // `input` may be a string or an array of items: the array's issues are the ones meant.
        visit(issue.errors.find((branch) => branch.some((inner) => typeof inner.path[0] === 'number')) ?? [], path);
      }
    }
  };
  visit(error.cause.issues, []);
  return refused;
}

/**
 * Converts each segment with `convert`. An entry the converter refuses (by its schema, or by its
 * place, as a result without its call) is set aside as a broken line and the rest converted, so
 * that one bad record costs only its own line, and a file with many costs no more than one pass
 * per kind of refusal. With `strict`, the first refusal is thrown.
 */
export function convertSegments<Entry>(
  segments: readonly Segment<Entry>[],
  convert: (entries: Entry[], options: ConversionOptions) => ConvertedRequest,
  strict: boolean,
): { converted: ConvertedRequest[]; broken: BrokenLine[] } {
  const broken: BrokenLine[] = [];
  const converted = segments.map((segment) => {
    let entries = segment.entries;
    for (;;) {
      const refused: BrokenLine[] = [];
      const lines = entries.map(({ line }) => line);
      const onRefused = (index: number, error: SlidingContextError) => {
        refused.push({ line: lines[index] ?? 0, reason: error.message });
      };
      try {
        const request = convert(entries.map(({ entry }) => entry), strict ? {} : { onRefused });
        for (const line of refused) broken.push(line);
        return request;
      } catch (error) {
        const bySchema = strict ? new Map<number, string>() : refusedBySchema(error);
        if (bySchema.size === 0) {
          const index = isSlidingContextError(error) ? /(?:messages|input)\[(\d+)\]/.exec(error.message)?.[1] : undefined;
          throw lineError(error, index === undefined ? undefined : lines[Number(index)]);
        }
        for (const [index, reason] of bySchema) broken.push({ line: lines[index] ?? 0, reason });
        entries = entries.filter((_, index) => !bySchema.has(index));
      }
    }
  });
  return { converted, broken };
}

function lineError(error: unknown, line: number | undefined): unknown {
  if (line === undefined || !isSlidingContextError(error)) return error;
  return new SlidingContextError(error.code, `line ${line}: ${error.message}`, { cause: error });
}
