/**
 * A request body parsed as JSON without first decoding it into one string. V8 puts a string over
 * 128 KiB in its large-object space, on pages of its own that it maps fresh for each one, and on
 * the virtual machine measured their page faults cost more than the parse (1.6–1.9 ms to decode a
 * 0.4 MB body, about 0.2 ms for the same bytes in 16 KiB pieces). So the outer value and its
 * members' members are taken apart on the bytes, and each piece is decoded and parsed on its own.
 * Anything this does not take apart cleanly goes to {@link parseJsonText}, whose value or error is
 * the one returned. Given the elements of earlier bodies ({@link EarlierElements}), the first
 * elements of a top-level array that an earlier body held byte for byte are taken from it, not parsed.
 */
import { isUtf8 } from 'node:buffer';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import { MAX_JSON_DEPTH, looksBinary, parseJsonText } from '../message/parse-json-text.js';
import type { EarlierElements, ParsedArray } from './earlier-elements.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** Containers this shallow are taken apart member by member; deeper values are parsed whole. */
const SPLIT_DEPTH = 2;

/** Bytes read to tell text from binary, as `looksBinary` does on the whole text's first 4,096 characters. */
const HEAD_BYTES = 16_384;

/** Thrown inside when the bytes are not what this takes apart; never leaves this file. */
class NotSplit extends Error {}

function isWhitespace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** A top-level array this parse made, and the earlier one it started with. */
interface MadeArray {
  readonly array: ParsedArray;
  readonly replacing: ParsedArray | undefined;
}

class PieceParser {
  readonly #bytes: Buffer;
  readonly #earlier: EarlierElements | undefined;
  #at = 0;
  /** The top-level arrays taken apart, kept only when the whole parse succeeds. */
  readonly made: MadeArray[] = [];

  constructor(bytes: Buffer, earlier: EarlierElements | undefined) {
    this.#bytes = bytes;
    this.#earlier = earlier;
  }

  parseWhole(): unknown {
    const value = this.#value(0);
    this.#skipWhitespace();
    if (this.#at !== this.#bytes.length) throw new NotSplit();
    return value;
  }

  #skipWhitespace(): void {
    while (isWhitespace(this.#bytes[this.#at])) this.#at++;
  }

  /** The value at the cursor, nested in `depth` containers (a member of the outer object has its `key`); the cursor moves past it. */
  #value(depth: number, key?: string): unknown {
    this.#skipWhitespace();
    const first = this.#bytes[this.#at];
    if (depth < SPLIT_DEPTH && first === OPEN_BRACE) return this.#object(depth + 1);
    if (depth < SPLIT_DEPTH && first === OPEN_BRACKET) {
      return key !== undefined && this.#earlier ? this.#memberArray(depth + 1, key, this.#earlier) : this.#array(depth + 1);
    }
    const start = this.#at;
    this.#skipValue(depth);
    return this.#parsePiece(start, this.#at);
  }

  #parsePiece(start: number, end: number): unknown {
    try {
      return JSON.parse(this.#bytes.toString('utf8', start, end)) as unknown;
    } catch {
      throw new NotSplit();
    }
  }

  /** An object whose `{` is at the cursor; its members' values are at `depth`. */
  #object(depth: number): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    if (this.#openedEmpty(CLOSE_BRACE)) return result;
    for (;;) {
      this.#skipWhitespace();
      if (this.#bytes[this.#at] !== QUOTE) throw new NotSplit();
      const keyStart = this.#at;
      this.#skipString();
      const key = this.#parsePiece(keyStart, this.#at);
      if (typeof key !== 'string') throw new NotSplit();
      this.#skipWhitespace();
      if (this.#bytes[this.#at] !== COLON) throw new NotSplit();
      this.#at++;
      // Defined, not assigned: a `__proto__` key is an own property, as `JSON.parse` makes it.
      Object.defineProperty(result, key, { value: this.#value(depth, depth === 1 ? key : undefined), writable: true, enumerable: true, configurable: true });
      if (this.#endOfMembers(CLOSE_BRACE)) return result;
    }
  }

  /** An array whose `[` is at the cursor; its elements are at `depth`. */
  #array(depth: number): unknown[] {
    const result: unknown[] = [];
    if (this.#openedEmpty(CLOSE_BRACKET)) return result;
    for (;;) {
      result.push(this.#value(depth));
      if (this.#endOfMembers(CLOSE_BRACKET)) return result;
    }
  }

  /**
   * An array whose `[` is at the cursor, a member of the outer object: its first elements are
   * taken from the earlier array that the bytes hold the longest run of, the rest parsed.
   */
  #memberArray(depth: number, key: string, earlier: EarlierElements): unknown[] {
    const values: unknown[] = [];
    const starts: number[] = [];
    const ends: number[] = [];
    const made = (replacing: ParsedArray | undefined) => {
      // A copy: the caller may change the array it is given.
      this.made.push({ array: { key, bytes: this.#bytes, starts, ends, values: values.slice() }, replacing });
      return values;
    };
    if (this.#openedEmpty(CLOSE_BRACKET)) return made(undefined);
    this.#skipWhitespace();
    const run = earlier.longestRun(key, this.#bytes, this.#at);
    if (run) {
      const from = this.#at - (run.earlier.starts[0] ?? 0);
      for (let index = 0; index < run.count; index++) {
        starts.push(from + (run.earlier.starts[index] ?? 0));
        ends.push(from + (run.earlier.ends[index] ?? 0));
        values.push(run.earlier.values[index]);
      }
      this.#at = ends.at(-1) ?? this.#at;
      if (this.#endOfMembers(CLOSE_BRACKET)) return made(run.earlier);
    }
    for (;;) {
      this.#skipWhitespace();
      starts.push(this.#at);
      values.push(this.#value(depth));
      ends.push(this.#at);
      if (this.#endOfMembers(CLOSE_BRACKET)) return made(run?.earlier);
    }
  }

  /** Moves past the container's opening at the cursor; true, and past its `close` too, when it is empty. */
  #openedEmpty(close: number): boolean {
    this.#at++;
    this.#skipWhitespace();
    if (this.#bytes[this.#at] !== close) return false;
    this.#at++;
    return true;
  }

  /** After a member: true past the container's `close`, false past a comma. */
  #endOfMembers(close: number): boolean {
    this.#skipWhitespace();
    const byte = this.#bytes[this.#at++];
    if (byte === close) return true;
    if (byte === COMMA) return false;
    throw new NotSplit();
  }

  /** Moves past the string whose opening quote is at the cursor. */
  #skipString(): void {
    let end = this.#at;
    for (;;) {
      end = this.#bytes.indexOf(QUOTE, end + 1);
      if (end === -1) throw new NotSplit();
      let backslashes = 0;
      while (this.#bytes[end - 1 - backslashes] === BACKSLASH) backslashes++;
      if (backslashes % 2 === 0) break;
    }
    this.#at = end + 1;
  }

  /** Moves past the value at the cursor (nested in `depth` containers) without parsing it; `JSON.parse` checks it after. */
  #skipValue(depth: number): void {
    const bytes = this.#bytes;
    let nested = 0;
    for (;;) {
      const byte = bytes[this.#at];
      if (byte === undefined) {
        // The end of the text ends a number or a literal that is the whole value.
        if (nested === 0) return;
        throw new NotSplit();
      }
      if (byte === QUOTE) {
        this.#skipString();
        if (nested === 0) return;
      } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
        nested++;
        // Deeper than the limit: left to parseJsonText, which names the line and column.
        if (depth + nested > MAX_JSON_DEPTH) throw new NotSplit();
        this.#at++;
      } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        // The enclosing container's end: a number or a literal ends before it.
        if (nested === 0) return;
        nested--;
        this.#at++;
        if (nested === 0) return;
      } else if (nested === 0 && (byte === COMMA || isWhitespace(byte))) {
        return;
      } else {
        this.#at++;
      }
    }
  }
}

/**
 * The value of JSON `bytes`, parsed piece by piece: the outer value's members and their members are
 * taken apart on the bytes, deeper values parsed whole. Undefined when the bytes are not taken apart
 * cleanly: not JSON, nested deeper than {@link MAX_JSON_DEPTH}, or binary (see `looksBinary`).
 */
export function parseJsonPieces(bytes: Buffer, earlier?: EarlierElements): unknown {
  if (looksBinary(bytes.toString('utf8', 0, HEAD_BYTES))) return undefined;
  try {
    const parser = new PieceParser(bytes, earlier);
    const value = parser.parseWhole();
    for (const { array, replacing } of parser.made) earlier?.remember(array, replacing);
    return value;
  } catch (error) {
    if (error instanceof NotSplit) return undefined;
    throw error;
  }
}

/** The offset of the first byte of `bytes` that is not UTF-8 (each one decodes to U+FFFD where the bytes are not that character's own), or -1. */
function firstInvalidUtf8Byte(bytes: Buffer): number {
  const text = bytes.toString('utf8');
  let offset = 0;
  let from = 0;
  for (let index = text.indexOf('\ufffd'); index >= 0; index = text.indexOf('\ufffd', index + 1)) {
    offset += Buffer.byteLength(text.slice(from, index));
    from = index;
    if (bytes[offset] !== 0xef || bytes[offset + 1] !== 0xbf || bytes[offset + 2] !== 0xbd) return offset;
  }
  return -1;
}

/**
 * Parses a body of JSON from `source` as {@link parseJsonText} parses its text, with the same
 * value and the same errors (`INPUT_NOT_TEXT`, `INVALID_JSON`, `INPUT_TOO_DEEP`), but without one
 * string of the whole body where it can (see {@link parseJsonPieces}). JSON is UTF-8: a body that
 * is not is refused, not read with its bad bytes replaced.
 * @throws SlidingContextError `INVALID_JSON` naming the first byte that is not UTF-8
 */
export function parseJsonBody(bytes: Buffer, source: string, earlier?: EarlierElements): unknown {
  if (!isUtf8(bytes)) {
    // Binary bytes, or bad JSON, are named as such (it throws); JSON whose only fault is bytes that are not UTF-8, here.
    parseJsonText(bytes.toString('utf8'), source);
    throw new SlidingContextError('INVALID_JSON', `${source} is not valid UTF-8 (byte ${firstInvalidUtf8Byte(bytes)}); JSON must be UTF-8.`);
  }
  return parseJsonPieces(bytes, earlier) ?? parseJsonText(bytes.toString('utf8'), source);
}
