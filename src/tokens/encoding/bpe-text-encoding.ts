import { pretokenizePattern } from './pretokenize-pattern.js';
import { selfIteratingRegex } from './self-iterating-regex.js';
import type { EncodingName, TextEncoding } from './text-encoding.js';

/** Pieces longer than this are split before encoding: BPE is quadratic in a piece's length. */
export const LONG_RUN_CHARACTERS = 4096;
/** Size of the chunks a long run is cut into; small enough that a chunk encodes in milliseconds. */
const RUN_CHUNK_CHARACTERS = 1024;
/** Characters where JavaScript's `\s` and tiktoken's disagree (see `pretokenize-pattern.ts`). */
const DISPUTED_SPACE = /[\uFEFF\u0085]/u;

/**
 * True when the text may hold a piece longer than {@link LONG_RUN_CHARACTERS}: a run of letters
 * (all non-ASCII counted as letters), of white space or of ASCII punctuation. Digits split every
 * three, so they never make a long piece. A linear scan: a regex here backtracks badly.
 */
function mayHoldLongRun(text: string): boolean {
  let previous = -1;
  let run = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const kind =
      code === 32 || (code >= 9 && code <= 13)
        ? 0
        : (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code > 127
            ? 1
            : code >= 48 && code <= 57
              ? -1
              : 2;
    run = kind === previous && kind >= 0 ? run + 1 : 1;
    previous = kind;
    if (run > LONG_RUN_CHARACTERS) return true;
  }
  return false;
}
const CHUNK_CACHE_LIMIT = 4096;
/**
 * Where large texts are cut so that only the parts that need care take the careful path: after a
 * newline that a letter follows. No piece of either pattern crosses that point (a letter piece
 * never starts with a newline, and nothing before it can take the letter).
 */
const SAFE_CUT = /\n(?=\p{L})/gu;
const CUT_TARGET_CHARACTERS = 16_384;
const ALL_SPACE = /^\s+$/u;

/** What a BPE library gives us: a fast ordinary count and the raw merge ranks. */
export interface BpeSource {
  readonly name: EncodingName;
  /** Counts text as ordinary text with the library's own pre-tokenizer. */
  countOrdinary(text: string): number;
  /** Token bytes by rank: a string for valid UTF-8, else the bytes. */
  readonly ranks: readonly (string | readonly number[])[];
}

function latin1(bytes: Iterable<number>): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return text;
}

/**
 * An exact encoding built on a fast BPE library. The library does the common case; we handle
 * what it gets wrong or too slowly: text with U+FEFF or U+0085 (pre-tokenized as tiktoken does,
 * pieces with a BOM merged by our own byte-level BPE), and runs longer than
 * {@link LONG_RUN_CHARACTERS}, cut into cached chunks.
 */
export function createBpeTextEncoding(source: BpeSource): TextEncoding {
  const pattern = selfIteratingRegex(pretokenizePattern(source.name));
  const chunkCounts = new Map<string, number>();
  let byteRanks: Map<string, number> | undefined;

  const ranksByBytes = () => {
    if (byteRanks) return byteRanks;
    const encoder = new TextEncoder();
    byteRanks = new Map();
    source.ranks.forEach((token, rank) => {
      byteRanks?.set(typeof token === 'string' ? latin1(encoder.encode(token)) : latin1(token), rank);
    });
    return byteRanks;
  };

  /** Textbook byte-level BPE: merge the lowest-ranked adjacent pair until none is a token. */
  const countBytePairs = (piece: string): number => {
    const ranks = ranksByBytes();
    let parts = [...new TextEncoder().encode(piece)].map((byte) => String.fromCharCode(byte));
    for (;;) {
      let best = -1;
      let bestRank = Number.POSITIVE_INFINITY;
      for (let index = 0; index < parts.length - 1; index++) {
        const rank = ranks.get(`${parts[index] ?? ''}${parts[index + 1] ?? ''}`);
        if (rank !== undefined && rank < bestRank) {
          best = index;
          bestRank = rank;
        }
      }
      if (best < 0) return parts.length;
      parts = [...parts.slice(0, best), `${parts[best] ?? ''}${parts[best + 1] ?? ''}`, ...parts.slice(best + 2)];
    }
  };

  const countChunk = (chunk: string): number => {
    const cached = chunkCounts.get(chunk);
    if (cached !== undefined) return cached;
    const count = DISPUTED_SPACE.test(chunk) ? countBytePairs(chunk) : source.countOrdinary(chunk);
    if (chunkCounts.size >= CHUNK_CACHE_LIMIT) chunkCounts.clear();
    chunkCounts.set(chunk, count);
    return count;
  };

  const countCarefully = (text: string): number => {
    let count = 0;
    let batch = '';
    let batchEndsInSpace = false;
    for (const [piece] of text.matchAll(pattern)) {
      const special = piece.length > LONG_RUN_CHARACTERS || DISPUTED_SPACE.test(piece);
      const space = ALL_SPACE.test(piece);
      if (!special) {
        // Two whitespace pieces were split by a lookahead on what follows them; side by side
        // at the end of a batch that context is gone and the library would merge them.
        if (space && batchEndsInSpace) {
          count += source.countOrdinary(batch);
          batch = '';
        }
        batch += piece;
        batchEndsInSpace = space;
        continue;
      }
      batchEndsInSpace = false;
      if (batch) count += source.countOrdinary(batch);
      batch = '';
      if (piece.length <= LONG_RUN_CHARACTERS) {
        count += countChunk(piece);
        continue;
      }
      for (let start = 0; start < piece.length; start += RUN_CHUNK_CHARACTERS) {
        count += countChunk(piece.slice(start, start + RUN_CHUNK_CHARACTERS));
      }
    }
    return batch ? count + source.countOrdinary(batch) : count;
  };

  const countRegion = (text: string): number => {
    const simple = !DISPUTED_SPACE.test(text) && (text.length <= LONG_RUN_CHARACTERS || !mayHoldLongRun(text));
    return simple ? source.countOrdinary(text) : countCarefully(text);
  };

  return {
    name: source.name,
    countText(text) {
      if (text.length <= CUT_TARGET_CHARACTERS * 2) return countRegion(text);
      let count = 0;
      let start = 0;
      for (const cut of text.matchAll(SAFE_CUT)) {
        const end = cut.index + 1;
        if (end - start < CUT_TARGET_CHARACTERS) continue;
        count += countRegion(text.slice(start, end));
        start = end;
      }
      return count + countRegion(text.slice(start));
    },
  };
}
