import type { EncodingName } from './text-encoding.js';

/**
 * Unicode White_Space, the `\s` of tiktoken's regex engine. JavaScript's `\s` differs: it adds
 * U+FEFF and leaves out U+0085, which would split text differently from tiktoken.
 */
const WHITE_SPACE = String.raw`\t\n\v\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000`;
const S = `[${WHITE_SPACE}]`;
const NOT_S_L_N = String.raw`[^${WHITE_SPACE}\p{L}\p{N}]`;
const CONTRACTION = String.raw`(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])`;

/**
 * tiktoken's pre-tokenizer patterns, with `\s` spelled out as Unicode White_Space.
 * @see https://github.com/openai/tiktoken/blob/main/tiktoken_ext/openai_public.py
 */
const PATTERNS: Record<EncodingName, string> = {
  o200k_base: [
    String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+${CONTRACTION}?`,
    String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*${CONTRACTION}?`,
    String.raw`\p{N}{1,3}`,
    String.raw` ?${NOT_S_L_N}+[\r\n/]*`,
    `${S}*[\\r\\n]+`,
    `${S}+(?![^${WHITE_SPACE}])`,
    `${S}+`,
  ].join('|'),
  cl100k_base: [
    CONTRACTION,
    String.raw`[^\r\n\p{L}\p{N}]?\p{L}+`,
    String.raw`\p{N}{1,3}`,
    String.raw` ?${NOT_S_L_N}+[\r\n]*`,
    `${S}*[\\r\\n]+`,
    `${S}+(?![^${WHITE_SPACE}])`,
    `${S}+`,
  ].join('|'),
};

/** A fresh global regex that splits text into pieces exactly as tiktoken does. */
export function pretokenizePattern(name: EncodingName): RegExp {
  return new RegExp(PATTERNS[name], 'gu');
}
