import { isRecord } from '../message/is-record.js';
import type { ToolResultOutput } from '../message/message.js';
import { toolOutputText } from '../message/tool-output-text.js';

/** How a tool call ended: its exit code when the result says, whether it failed, and the first error line. */
export interface ToolOutcome {
  readonly exitCode?: number | undefined;
  readonly failed: boolean;
  /** The first line that reads as an error, else the first line, for a failure. */
  readonly errorLine?: string | undefined;
}

/** A line that reads as an error in a test run, a compiler, a shell or a tool's own message. */
const ERROR_LINE = new RegExp(
  ['error', 'errors', 'fail', 'failed', 'failing', 'failure', 'exception', 'cannot', 'can\'t', 'could not', 'not found', 'no such', 'denied', 'fatal', 'panic', 'traceback', 'refused', 'invalid', 'does not exist', 'timed? ?out']
    .map((word) => `\\b${word}\\b`).join('|') + '|✗|×',
  'i',
);
/** `Exit code: 1` (Codex), `Process exited with code 1` (Codex exec), `Error: Exit code 1` (Claude Code). */
const EXIT_CODE = /\bexit(?:ed with)?[ _]code:?\s*(-?\d+)/i;
const FIRST_LINE_CHARACTERS = 160;

function clipLine(line: string): string {
  const flat = line.replace(/\s+/g, ' ').trim();
  return flat.length <= FIRST_LINE_CHARACTERS ? flat : `${flat.slice(0, FIRST_LINE_CHARACTERS - 1)}…`;
}

/** A Codex shell result is JSON text: `{ output, metadata: { exit_code } }`. */
function codexShellResult(text: string): { output: string; exitCode: number | undefined } | undefined {
  if (!text.trimStart().startsWith('{')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(value) || typeof value.output !== 'string') return undefined;
  const exitCode = isRecord(value.metadata) && typeof value.metadata.exit_code === 'number' ? value.metadata.exit_code : undefined;
  return { output: value.output, exitCode };
}

/** The first line that reads as an error, else the first non-blank line that is not the exit code. */
export function firstErrorLine(text: string): string | undefined {
  const lines = text.split('\n').map((line) => line.trim()).filter((line) => line !== '' && !/^(exit code|wall time|output):/i.test(line));
  const line = lines.find((candidate) => ERROR_LINE.test(candidate)) ?? lines[0];
  return line === undefined ? undefined : clipLine(line);
}

/**
 * How a tool call ended, from its result: an error output, a non-zero exit code in the text or
 * in Codex's `metadata.exit_code`, each a failure.
 */
export function toolOutcome(output: ToolResultOutput): ToolOutcome {
  const text = toolOutputText(output);
  const codex = codexShellResult(text);
  const body = codex?.output ?? text;
  const stated = EXIT_CODE.exec(text.slice(0, 400))?.[1];
  const exitCode = codex?.exitCode ?? (stated === undefined ? undefined : Number(stated));
  const failed = output.type === 'error-text' || output.type === 'error-json' || (exitCode !== undefined && exitCode !== 0);
  return { exitCode, failed, errorLine: failed ? firstErrorLine(body) : undefined };
}
