import { isRecord } from '../message/is-record.js';
import type { ContextOverflowWording } from './_context-overflow-wording.js';
import { contextOverflowWordings } from './provider-table.js';

/** A provider's answer that the request was longer than the model's context. */
export interface ContextOverflow {
  /** The request's tokens as the provider counted them, when it said. */
  readonly tokens: number | undefined;
  /** The model's limit in tokens, when the provider said. */
  readonly limit: number | undefined;
  /** The provider's own words. */
  readonly message: string;
}

/** Wordings of no one provider, tried after every provider's own. */
const ANY_PROVIDER: ContextOverflowWording = {
  patterns: [{ pattern: /prompt is too long|context length exceeded|maximum context length|too many tokens/i }],
  codes: [],
};

const PATTERNS = [...contextOverflowWordings, ANY_PROVIDER].flatMap((wording) => wording.patterns);
const OVERFLOW_CODES = new Set(contextOverflowWordings.flatMap((wording) => wording.codes));

/** The texts and codes an error carries: an SDK error, its parsed body, or a raw `{ status, body }`. */
function describe(error: unknown, depth = 0): { texts: string[]; codes: string[]; numbers: Record<string, number> } {
  const found = { texts: [] as string[], codes: [] as string[], numbers: {} as Record<string, number> };
  if (depth > 4) return found;
  if (typeof error === 'string') {
    found.texts.push(error);
    return found;
  }
  if (!isRecord(error) && !(error instanceof Error)) return found;
  const record = error as Record<string, unknown>;
  if (typeof record.message === 'string') found.texts.push(record.message);
  for (const key of ['code', 'type']) if (typeof record[key] === 'string') found.codes.push(record[key]);
  for (const key of ['n_prompt_tokens', 'n_ctx']) if (typeof record[key] === 'number') found.numbers[key] = record[key];
  for (const key of ['error', 'body', 'response', 'data', 'cause']) {
    const inner = describe(record[key], depth + 1);
    for (const text of inner.texts) found.texts.push(text);
    for (const code of inner.codes) found.codes.push(code);
    Object.assign(found.numbers, inner.numbers);
  }
  return found;
}

/**
 * Recognizes a provider's "request too long" error (OpenAI, Anthropic, Google, and the
 * OpenAI-compatible servers llama.cpp and vLLM, each worded in its provider's folder), from the
 * official SDKs' errors or a raw body, with the tokens and limit it names. Undefined for any other error.
 */
export function contextOverflowOf(error: unknown): ContextOverflow | undefined {
  const { texts, codes, numbers } = describe(error);
  const coded = codes.some((code) => OVERFLOW_CODES.has(code));
  for (const text of texts) {
    for (const { pattern, tokens, limit } of PATTERNS) {
      const match = pattern.exec(text);
      if (!match) continue;
      const at = (group: number | undefined) => (group === undefined ? undefined : Number(match[group]));
      return { tokens: at(tokens) ?? numbers.n_prompt_tokens, limit: at(limit) ?? numbers.n_ctx, message: text };
    }
  }
  if (coded) return { tokens: numbers.n_prompt_tokens, limit: numbers.n_ctx, message: texts[0] ?? codes.join(', ') };
  return undefined;
}
