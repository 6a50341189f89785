/**
 * The elements of earlier request bodies' top-level arrays (`messages`, `input`, `tools`,
 * `system`), by their bytes, so that a conversation's next body parses only what its client added:
 * an agent resends its whole history on every turn, and parsing it again is most of a request's
 * allocation. An element is taken from an earlier body only when the new body holds its exact
 * bytes, and the separators before it, at the same place in the array.
 */
import { deepFreeze } from '../message/deep-freeze.js';

/** A top-level array of a parsed body: its elements' values and where their bytes lie. */
export interface ParsedArray {
  /** The top-level member that holds it. */
  readonly key: string;
  readonly bytes: Buffer;
  readonly starts: readonly number[];
  readonly ends: readonly number[];
  /** Frozen, deeply: the next body that holds the same bytes gets the same values. */
  readonly values: readonly unknown[];
}

/** The first elements of an earlier array that a new body holds from a place on. */
export interface ElementRun {
  readonly earlier: ParsedArray;
  readonly count: number;
}

/** How many arrays are kept: two or three per conversation in use, the least recently used dropped first. */
const KEPT_ARRAYS = 512;

/** How many bytes the kept arrays may span, together. */
const KEPT_BYTES = 128 * 1024 * 1024;

const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d;

function isWhitespace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** Whether a value may end before this byte: the array's next separator, its end, or space. */
function endsValue(byte: number | undefined): boolean {
  return byte === COMMA || byte === CLOSE_BRACKET || isWhitespace(byte);
}

function spanOf(array: ParsedArray): number {
  return array.values.length === 0 ? 0 : (array.ends.at(-1) ?? 0) - (array.starts[0] ?? 0);
}

/**
 * How many of `earlier`'s first elements `bytes` holds from `at` on: the same bytes, element and
 * separators alike, the last of them ending where a value may end. The whole array is tried at once
 * first (a conversation's next turn holds all of its last), then element by element.
 */
function matchingCount(earlier: ParsedArray, bytes: Buffer, at: number): number {
  const { starts, ends } = earlier;
  const first = starts[0];
  if (first === undefined) return 0;
  const holds = (from: number, count: number) => {
    const end = ends[count - 1] ?? 0;
    const place = at + (from - first);
    const length = end - from;
    if (place + length > bytes.length) return false;
    return bytes.compare(earlier.bytes, from, end, place, place + length) === 0 && endsValue(bytes[at + (end - first)]);
  };
  if (holds(first, starts.length)) return starts.length;
  let count = 0;
  // Each element with the separator before it, which the whole run's places assume.
  while (count < starts.length && holds(count === 0 ? first : (ends[count - 1] ?? 0), count + 1)) count++;
  return count;
}

/** The top-level arrays of the bodies parsed last, least recently used first. */
export class EarlierElements {
  readonly #kept = new Set<ParsedArray>();
  #keptBytes = 0;

  /** The longest run of an earlier `key` array's first elements that `bytes` holds from `at` on. */
  longestRun(key: string, bytes: Buffer, at: number): ElementRun | undefined {
    let longest: ElementRun | undefined;
    for (const earlier of this.#kept) {
      if (earlier.key !== key || earlier.values.length <= (longest?.count ?? 0)) continue;
      const count = matchingCount(earlier, bytes, at);
      if (count > (longest?.count ?? 0)) longest = { earlier, count };
    }
    return longest;
  }

  /**
   * Keeps a parsed body's array in place of the one it started with (the conversation's entry
   * moves on to it); its values are frozen.
   */
  remember(array: ParsedArray, replacing: ParsedArray | undefined): void {
    // Frozen, so that no use of them can change what a later body is given.
    for (const value of array.values) deepFreeze(value);
    if (replacing !== undefined && this.#kept.delete(replacing)) this.#keptBytes -= spanOf(replacing);
    this.#kept.add(array);
    this.#keptBytes += spanOf(array);
    for (const oldest of this.#kept) {
      if (this.#kept.size <= KEPT_ARRAYS && this.#keptBytes <= KEPT_BYTES) break;
      this.#kept.delete(oldest);
      this.#keptBytes -= spanOf(oldest);
    }
  }
}
