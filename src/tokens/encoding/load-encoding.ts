import { BytePairEncodingCore } from 'gpt-tokenizer/BytePairEncodingCore';
import { getEncodingParams } from 'gpt-tokenizer/modelParams';
import { createBpeTextEncoding } from './bpe-text-encoding.js';
import { selfIteratingRegex } from './self-iterating-regex.js';
import type { EncodingName, TextEncoding } from './text-encoding.js';

const loaded = new Map<EncodingName, Promise<TextEncoding>>();

async function load(name: EncodingName): Promise<TextEncoding> {
  const ranks = name === 'o200k_base' ? await import('gpt-tokenizer/esm/bpeRanks/o200k_base') : await import('gpt-tokenizer/esm/bpeRanks/cl100k_base');
  const params = getEncodingParams(name, () => ranks.default);
  // gpt-tokenizer's own encoder, with a pre-tokenizer regex of our own that stays compiled (see `selfIteratingRegex`).
  const encoder = new BytePairEncodingCore({ ...params, tokenSplitRegex: selfIteratingRegex(params.tokenSplitRegex) });
  return createBpeTextEncoding({
    name,
    // No special tokens allowed: their strings count as ordinary text.
    countOrdinary: (text) => encoder.countNative(text),
    ranks: ranks.default,
  });
}

/**
 * Loads an encoding once per process (gpt-tokenizer's tables are a few megabytes, so only the
 * encodings a model needs are loaded).
 */
export function loadEncoding(name: EncodingName): Promise<TextEncoding> {
  let encoding = loaded.get(name);
  if (!encoding) {
    encoding = load(name);
    loaded.set(name, encoding);
  }
  return encoding;
}
