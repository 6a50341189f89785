/** Kinds of text whose tokens-per-character differ enough to estimate separately. */
export type ContentType = 'prose' | 'code' | 'json' | 'cjk' | 'other';

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;
const LETTER = /\p{L}/gu;
const CODE_SYMBOL = /[{}()[\];=<>]/g;
const LATIN_PROSE = /[A-Za-z ,.'’\n-]/g;
const SAMPLE_CHARACTERS = 4000;

const share = (text: string, pattern: RegExp) => (text.match(pattern)?.length ?? 0) / Math.max(1, text.length);

/** Guesses the content type of a text from a sample of its start and end. */
export function classifyContent(text: string): ContentType {
  const sample =
    text.length > SAMPLE_CHARACTERS
      ? text.slice(0, SAMPLE_CHARACTERS / 2) + text.slice(-SAMPLE_CHARACTERS / 2)
      : text;
  const letters = share(sample, LETTER);
  if (letters > 0 && share(sample, CJK) / letters > 0.3) return 'cjk';
  const trimmed = sample.trim();
  if (/^[{[]/.test(trimmed) && /[}\]]$/.test(trimmed) && trimmed.includes('"')) return 'json';
  if (share(sample, CODE_SYMBOL) > 0.035) return 'code';
  if (share(sample, LATIN_PROSE) > 0.85) return 'prose';
  return 'other';
}
