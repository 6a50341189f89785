import { SlidingContextError } from '../errors/sliding-context-error.js';
import { REORDERING_CHARACTER } from './reordering-character.js';

/**
 * The deepest nesting of arrays and objects accepted in JSON from outside. The checks that walk a
 * value (zod, format detection) recurse, so a deeper value would overflow the stack.
 */
export const MAX_JSON_DEPTH = 256;

/** What a conversation file should hold, for messages about a file that is something else. */
const EXPECTED_CONVERSATION = 'a JSON file: a message array, { system?, tools?, messages } or a provider request body';

/** True for a control character, a replacement character or an invisible byte order mark: a message shows it as an escape, never raw. */
function isUnprintable(code: number): boolean {
  return code < 0x20 || (code >= 0x7f && code < 0xa0) || code === 0xfffd || code === 0xfeff;
}

/** `text` with control characters as `\uXXXX` escapes: bytes of a wrong file never reach the terminal. */
export function printableText(text: string): string {
  let result = '';
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    result += isUnprintable(code) || REORDERING_CHARACTER.test(character) ? `\\u${code.toString(16).padStart(4, '0')}` : character;
  }
  return result;
}

/** True for a control character no text file holds: not whitespace, nor the escape of coloured output. */
function isBinaryControl(code: number): boolean {
  return (code < 0x20 && (code < 0x09 || code > 0x0d) && code !== 0x1b) || code === 0x7f;
}

/**
 * True when text read as UTF-8 holds what no text file does: a NUL; or in its first 4,096
 * characters more than 5% control characters other than whitespace and escape (a bare PNG
 * signature has one in eight); or more than 5% undecodable ones, and more than 8, since a short
 * text in another encoding has a few.
 */
export function looksBinary(text: string): boolean {
  if (text.includes('\u0000')) return true;
  const head = text.slice(0, 4096);
  let controls = 0;
  let undecodable = 0;
  for (let index = 0; index < head.length; index++) {
    const code = head.charCodeAt(index);
    if (code === 0xfffd) undecodable++;
    else if (isBinaryControl(code)) controls++;
  }
  return controls * 20 > head.length || (undecodable > 8 && undecodable * 20 > head.length);
}

/**
 * The offset at which JSON `text` first nests deeper than `limit` arrays and objects, or -1.
 * A loop over the text, so that it needs no stack however deep the value.
 */
export function findJsonDepthExcess(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x22) {
      // Skip the string: to the next quote not escaped by an odd run of backslashes.
      let end = index;
      for (;;) {
        end = text.indexOf('"', end + 1);
        if (end === -1) return -1;
        let backslashes = 0;
        while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes++;
        if (backslashes % 2 === 0) break;
      }
      index = end;
    } else if (code === 0x5b || code === 0x7b) {
      depth++;
      if (depth > limit) return index;
    } else if (code === 0x5d || code === 0x7d) {
      depth--;
    }
  }
  return -1;
}

/**
 * Refuses JSON `text` from `source` that nests deeper than {@link MAX_JSON_DEPTH}, naming the line
 * and column (`firstLine` is the line the text starts on, for one line of a JSONL file).
 * @throws SlidingContextError `INPUT_TOO_DEEP`
 */
export function requireJsonDepth(text: string, source: string, firstLine = 1): void {
  const offset = findJsonDepthExcess(text);
  if (offset === -1) return;
  let line = firstLine;
  let lineStart = 0;
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) {
    line++;
    lineStart = index + 1;
  }
  throw new SlidingContextError(
    'INPUT_TOO_DEEP',
    `${source}: line ${line}, column ${offset - lineStart + 1} nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels, the most accepted; no conversation nests that deep, so check the file.`,
  );
}

/**
 * Parses JSON text from `source` (a file name or `stdin`) that came from outside, before anything
 * walks it: binary bytes are `INPUT_NOT_TEXT`, invalid JSON `INVALID_JSON` (its snippet with
 * control characters escaped), nesting deeper than {@link MAX_JSON_DEPTH} `INPUT_TOO_DEEP`.
 */
export function parseJsonText(text: string, source: string, expected = EXPECTED_CONVERSATION): unknown {
  if (looksBinary(text)) {
    throw new SlidingContextError('INPUT_NOT_TEXT', `${source} is not text (it holds binary bytes); expected ${expected}.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new SlidingContextError('INVALID_JSON', `${source} is not valid JSON: ${printableText(reason)}.`, { cause: error });
  }
  requireJsonDepth(text, source);
  return json;
}
