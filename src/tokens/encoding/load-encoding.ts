import { createBpeTextEncoding } from './bpe-text-encoding.js';
import type { EncodingName, TextEncoding } from './text-encoding.js';

const ORDINARY = { disallowedSpecial: new Set<string>() };
const loaded = new Map<EncodingName, Promise<TextEncoding>>();

async function load(name: EncodingName): Promise<TextEncoding> {
  const [library, ranks] =
    name === 'o200k_base'
      ? await Promise.all([import('gpt-tokenizer/encoding/o200k_base'), import('gpt-tokenizer/esm/bpeRanks/o200k_base')])
      : await Promise.all([import('gpt-tokenizer/encoding/cl100k_base'), import('gpt-tokenizer/esm/bpeRanks/cl100k_base')]);
  return createBpeTextEncoding({
    name,
    countOrdinary: (text) => library.countTokens(text, ORDINARY),
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
