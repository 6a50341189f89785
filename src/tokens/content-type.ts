/** Kinds of text whose tokens-per-character differ enough to estimate separately. */
export type ContentType = 'prose' | 'code' | 'json' | 'cjk' | 'other';

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const LETTER = /\p{L}/u;
const CODE_SYMBOLS = '{}()[];=<>';
/** With the ASCII letters and `’` (U+2019), what prose is mostly made of. */
const LATIN_PROSE_SYMBOLS = ' ,.\'\n-';
const SAMPLE_CHARACTERS = 4000;

/** How many characters of a text are of each kind that tells its content type apart. */
interface CharacterCounts {
  /** Letters of any script, counted by code point. */
  letters: number;
  /** Han, Hiragana, Katakana and Hangul, by code point. */
  cjk: number;
  /** `{}()[];=<>`, by UTF-16 unit. */
  codeSymbols: number;
  /** ASCII letters, space, `,.'’-` and newlines, by UTF-16 unit. */
  latinProse: number;
}

/** What each character outside ASCII is, as bits: {@link LETTER_BIT}, {@link CJK_BIT} (a text repeats its characters). */
const kindOfCodePoint = new Map<number, number>();

const LETTER_BIT = 1;
/** Not always a letter too: CJK radicals are symbols. */
const CJK_BIT = 2;

function kindOf(codePoint: number): number {
  let kind = kindOfCodePoint.get(codePoint);
  if (kind === undefined) {
    const character = String.fromCodePoint(codePoint);
    kind = (LETTER.test(character) ? LETTER_BIT : 0) | (CJK.test(character) ? CJK_BIT : 0);
    if (kindOfCodePoint.size < 65_536) kindOfCodePoint.set(codePoint, kind);
  }
  return kind;
}

/** One pass over `text`, in place of a regex match (and its array) per kind. */
function countCharacters(text: string): CharacterCounts {
  const counts: CharacterCounts = { letters: 0, cjk: 0, codeSymbols: 0, latinProse: 0 };
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit < 128) {
      const isLetter = (unit >= 65 && unit <= 90) || (unit >= 97 && unit <= 122);
      if (isLetter) {
        counts.letters++;
        counts.latinProse++;
      } else if (LATIN_PROSE_SYMBOLS.includes(String.fromCharCode(unit))) counts.latinProse++;
      else if (CODE_SYMBOLS.includes(String.fromCharCode(unit))) counts.codeSymbols++;
      continue;
    }
    // `’`, the one character of prose outside ASCII.
    if (unit === 0x2019) counts.latinProse++;
    const codePoint = text.codePointAt(index) ?? unit;
    // A surrogate pair is one code point: its second unit is not looked at again.
    if (codePoint > 0xffff) index++;
    const kind = kindOf(codePoint);
    if (kind & LETTER_BIT) counts.letters++;
    if (kind & CJK_BIT) counts.cjk++;
  }
  return counts;
}

/** Guesses the content type of a text from a sample of its start and end. */
export function classifyContent(text: string): ContentType {
  const sample =
    text.length > SAMPLE_CHARACTERS
      ? text.slice(0, SAMPLE_CHARACTERS / 2) + text.slice(-SAMPLE_CHARACTERS / 2)
      : text;
  const length = Math.max(1, sample.length);
  const counts = countCharacters(sample);
  // Shares of the sample, as before the count was one pass: a ratio at the boundary falls the same way.
  if (counts.letters > 0 && counts.cjk / length / (counts.letters / length) > 0.3) return 'cjk';
  const trimmed = sample.trim();
  if (/^[{[]/.test(trimmed) && /[}\]]$/.test(trimmed) && trimmed.includes('"')) return 'json';
  if (counts.codeSymbols / length > 0.035) return 'code';
  if (counts.latinProse / length > 0.85) return 'prose';
  return 'other';
}
