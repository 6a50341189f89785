import { classifyContent, type ContentType } from './content-type.js';
import { hashText } from './_hash-text.js';
import type { TextEncoding } from './encoding/text-encoding.js';
import { SlidingContextError } from '../errors/sliding-context-error.js';

/** A partial count: tokens, and whether they are exact. */
export interface Measure {
  readonly tokens: number;
  readonly exact: boolean;
}

/** Adds measures; the sum is exact only when every part is. */
export function addMeasures(measures: Iterable<Measure>): Measure {
  let tokens = 0;
  let exact = true;
  for (const measure of measures) {
    tokens += measure.tokens;
    exact &&= measure.exact;
  }
  return { tokens, exact };
}

/** A fixed number of framing tokens, exact or not. */
export const fixed = (tokens: number, exact = true): Measure => ({ tokens, exact });

const TEXT_CACHE_MIN_CHARACTERS = 512;
const TEXT_CACHE_ENTRIES = 2048;

/** Base64 runs at least this long are counted by rate rather than by BPE. */
const BASE64_MIN_CHARACTERS = 1024;

const isBase64Character = (code: number) =>
  (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === 43 || code === 47 || code === 61;

/** Varied enough to be base64, not a run of one character or a hex hash. */
function looksLikeBase64(run: string): boolean {
  const head = run.slice(0, 256);
  return /[A-Z]/.test(head) && /[a-z]/.test(head) && /\d/.test(head) && new Set(head).size >= 20;
}

/** Start and end of every base64 run long enough to count by rate, in one linear scan. */
function findBase64Runs(text: string): [number, number][] {
  const runs: [number, number][] = [];
  let start = -1;
  for (let index = 0; index <= text.length; index++) {
    if (index < text.length && isBase64Character(text.charCodeAt(index))) {
      if (start < 0) start = index;
      continue;
    }
    if (start >= 0 && index - start >= BASE64_MIN_CHARACTERS && looksLikeBase64(text.slice(start, index))) runs.push([start, index]);
    start = -1;
  }
  return runs;
}

/** How a text measurer scales o200k counts, for providers without a public tokenizer. */
export type ContentFactors = Readonly<Record<ContentType, number>>;

/**
 * Measures text with an encoding: exactly when `factors` is absent, else as o200k × the factor
 * of its content type. Base64 blobs are counted at `base64CharactersPerToken` and flagged inexact.
 */
export function createTextMeasurer(options: {
  readonly encoding: TextEncoding;
  readonly base64CharactersPerToken: number;
  readonly factors?: ContentFactors | undefined;
}): (text: string) => Measure {
  const { factors, base64CharactersPerToken } = options;
  const scale = (text: string, tokens: number) => (factors ? Math.ceil(tokens * factors[classifyContent(text)]) : tokens);
  const countText = (text: string) => {
    const tokens = options.encoding.countText(text);
    // Non-empty text is at least one token: an answer of 0 means the encoder failed.
    if (text.length > 0 && !(tokens > 0)) throw new SlidingContextError('ENCODER_FAILED', `the ${options.encoding.name} encoder answered ${tokens} tokens for ${text.length} characters`);
    return tokens;
  };
  const measureUncached = (text: string): Measure => {
    const runs = text.length < BASE64_MIN_CHARACTERS ? [] : findBase64Runs(text);
    if (runs.length === 0) return { tokens: scale(text, countText(text)), exact: !factors };
    let tokens = 0;
    let rest = '';
    let last = 0;
    for (const [start, end] of runs) {
      rest += text.slice(last, start);
      last = end;
      tokens += Math.ceil(((end - start) / base64CharactersPerToken) * (factors?.other ?? 1));
    }
    rest += text.slice(last);
    return { tokens: tokens + scale(rest, countText(rest)), exact: false };
  };
  // Large texts recur (tool definitions across system prompt changes, a file read twice):
  // their counts are kept by a hash of the text.
  const cache = new Map<string, Measure>();
  return (text) => {
    if (text.length < TEXT_CACHE_MIN_CHARACTERS) return measureUncached(text);
    const key = `${hashText(text).toString(36)}|${text.length}`;
    const cached = cache.get(key);
    if (cached) return cached;
    const measure = measureUncached(text);
    if (cache.size >= TEXT_CACHE_ENTRIES) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
    cache.set(key, measure);
    return measure;
  };
}
