import { SlidingContextError } from '../errors/sliding-context-error.js';
import { convertClaudeCodeTranscript, isClaudeCodeRecord } from './claude-code-transcript.js';
import { convertCodexTranscript, isCodexRecord } from './codex-transcript.js';
import type { BrokenLine, Transcript, TranscriptFormat, TranscriptLine } from './transcript.js';

/** The transcript formats by name, as `import --format` takes them. */
export const TRANSCRIPT_FORMATS: readonly TranscriptFormat[] = ['claude-code', 'codex'];

/** How many records, other than Claude Code's title lines, detection reads before it gives up. */
const RECORDS_READ_TO_DETECT = 50;

/**
 * A Claude Code title line (`{"type":"summary","summary":…,"leafUuid":…}`): it names no session,
 * and a resumed session's file may start with hundreds of them.
 */
function isTitleLine(record: Readonly<Record<string, unknown>>): boolean {
  return record.type === 'summary' && typeof record.summary === 'string' && record.sessionId === undefined;
}

/** The format of a transcript, from its first records that say (title lines skipped). */
export function detectTranscriptFormat(records: readonly TranscriptLine[]): TranscriptFormat | undefined {
  let read = 0;
  for (const { record } of records) {
    if (isTitleLine(record)) continue;
    if (isCodexRecord(record)) return 'codex';
    if (isClaudeCodeRecord(record)) return 'claude-code';
    if (++read >= RECORDS_READ_TO_DETECT) break;
  }
  return undefined;
}

/**
 * Converts a parsed JSONL transcript, in the format given or the one detected. Lines already
 * found broken are reported with the ones conversion refuses; with `strict`, any broken line
 * fails the whole transcript (`INVALID_TRANSCRIPT` naming the line).
 */
export function readTranscript(
  parsed: { readonly records: readonly TranscriptLine[]; readonly broken: readonly BrokenLine[] },
  options: { readonly format?: TranscriptFormat | undefined; readonly strict?: boolean | undefined; readonly source: string },
): Transcript & { readonly detected: boolean } {
  const strict = options.strict === true;
  const [firstBroken] = parsed.broken;
  if (strict && firstBroken) throw new SlidingContextError('INVALID_TRANSCRIPT', `${options.source} line ${firstBroken.line}: ${firstBroken.reason}; nothing was imported (--strict).`);
  const format = options.format ?? detectTranscriptFormat(parsed.records);
  if (!format) {
    throw new SlidingContextError('UNKNOWN_FORMAT', `${options.source} is JSON lines but neither a Claude Code session nor a Codex rollout; pass --format claude-code or --format codex if it is one.`);
  }
  let transcript: Transcript;
  try {
    transcript = format === 'codex' ? convertCodexTranscript(parsed.records, strict) : convertClaudeCodeTranscript(parsed.records, strict);
  } catch (error) {
    if (error instanceof SlidingContextError) throw new SlidingContextError(error.code, `${options.source} ${error.message}${strict ? '; nothing was imported (--strict)' : ''}`, { cause: error });
    throw error;
  }
  const brokenLines = [...parsed.broken, ...transcript.brokenLines].sort((a, b) => a.line - b.line);
  return { ...transcript, brokenLines, detected: options.format === undefined };
}
