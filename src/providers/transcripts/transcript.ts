import { isSlidingContextError, SlidingContextError } from '../../errors/sliding-context-error.js';
import { isRecord } from '../../message/is-record.js';
import type { Message, ToolDefinition } from '../../message/message.js';
import { looksBinary, printableText, requireJsonDepth } from '../../message/parse-json-text.js';
import type { ConvertedRequest } from '../conversion.js';

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
  for (const text of lines) {
    line++;
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

/**
 * Converts each segment with `convert`. An entry the converter refuses (its error names
 * `messages[i]` or `input[i]`) is set aside as a broken line and the segment converted again,
 * so that one bad record costs only its own line. With `strict`, the first refusal is thrown.
 */
export function convertSegments<Entry>(
  segments: readonly Segment<Entry>[],
  convert: (entries: Entry[]) => ConvertedRequest,
  strict: boolean,
): { converted: ConvertedRequest[]; broken: BrokenLine[] } {
  const broken: BrokenLine[] = [];
  const converted = segments.map((segment) => {
    const entries = [...segment.entries];
    for (;;) {
      try {
        return convert(entries.map(({ entry }) => entry));
      } catch (error) {
        const index = isSlidingContextError(error) ? /(?:messages|input)\[(\d+)\]/.exec(error.message)?.[1] : undefined;
        const at = index === undefined ? undefined : entries[Number(index)];
        if (!at || strict) throw lineError(error, at?.line);
        broken.push({ line: at.line, reason: (error as Error).message });
        entries.splice(Number(index), 1);
      }
    }
  });
  return { converted, broken };
}

function lineError(error: unknown, line: number | undefined): unknown {
  if (line === undefined || !isSlidingContextError(error)) return error;
  return new SlidingContextError(error.code, `line ${line}: ${error.message}`, { cause: error });
}
