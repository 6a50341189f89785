import { createTokenCounter, type TokenCounterOptions } from './create-token-counter.js';
import { loadEncoding } from './encoding/load-encoding.js';
import type { EncodingName, TextEncoding } from './encoding/text-encoding.js';
import { resolveModel } from './model-catalog.js';
import type { CountTarget } from './token-counter.js';

/**
 * Loads the encodings that the given models need (o200k_base always; cl100k_base for older
 * OpenAI models) and creates the counter.
 */
export async function loadTokenCounter(
  options: Omit<TokenCounterOptions, 'encodings'> & { readonly targets?: readonly CountTarget[] } = {},
): Promise<ReturnType<typeof createTokenCounter>> {
  const names = new Set<EncodingName>(['o200k_base']);
  for (const target of options.targets ?? []) {
    const info = resolveModel(target.provider, target.model, options.models);
    if (info.tokenizer.kind === 'exact') names.add(info.tokenizer.encoding);
  }
  const encodings: Partial<Record<EncodingName, TextEncoding>> = {};
  for (const name of names) encodings[name] = await loadEncoding(name);
  return createTokenCounter({ ...options, encodings });
}
