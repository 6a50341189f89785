import { classifyContent, type ContentType } from './content-type.js';
import type { TextEncoding } from './encoding/text-encoding.js';

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

/**
 * A run of base64 (optionally a data URL) long enough that counting it by a measured rate beats
 * BPE, and varied enough that it is not a run of one character or a hex hash.
 */
const BASE64_RUN = /(?:data:[\w.+-]+\/[\w.+-]+;base64,)?[A-Za-z0-9+/]{1024,}={0,2}/g;

function looksLikeBase64(run: string): boolean {
  const head = run.replace(/^data:[^,]*,/, '').slice(0, 256);
  return /[A-Z]/.test(head) && /[a-z]/.test(head) && /\d/.test(head) && new Set(head).size >= 20;
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
    if (text.length > 0 && !(tokens > 0)) throw new Error(`the ${options.encoding.name} encoder answered ${tokens} tokens for ${text.length} characters`);
    return tokens;
  };
  return (text) => {
    if (text.length < 1024) return { tokens: scale(text, countText(text)), exact: !factors };
    let tokens = 0;
    let exact = !factors;
    let rest = '';
    let last = 0;
    for (const match of text.matchAll(BASE64_RUN)) {
      if (!looksLikeBase64(match[0])) continue;
      rest += text.slice(last, match.index);
      last = match.index + match[0].length;
      tokens += Math.ceil((match[0].length / base64CharactersPerToken) * (factors?.other ?? 1));
      exact = false;
    }
    rest += text.slice(last);
    return { tokens: tokens + scale(rest, countText(rest)), exact };
  };
}
