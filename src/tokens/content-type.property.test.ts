import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyContent, type ContentType } from './content-type.js';

/** The definition, by regex matches: what the one-pass count must agree with on any text. */
function classifiedByMatches(text: string): ContentType {
  const sample = text.length > 4000 ? text.slice(0, 2000) + text.slice(-2000) : text;
  const share = (pattern: RegExp) => (sample.match(pattern)?.length ?? 0) / Math.max(1, sample.length);
  const letters = share(/\p{L}/gu);
  if (letters > 0 && share(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu) / letters > 0.3) return 'cjk';
  const trimmed = sample.trim();
  if (/^[{[]/.test(trimmed) && /[}\]]$/.test(trimmed) && trimmed.includes('"')) return 'json';
  if (share(/[{}()[\];=<>]/g) > 0.035) return 'code';
  if (share(/[A-Za-z ,.'’\n-]/g) > 0.85) return 'prose';
  return 'other';
}

/**
 * Texts near every boundary: prose, code and JSON characters, CJK letters and CJK symbols
 * (radicals, which are no letters), letters outside the BMP, lone surrogates, any code unit.
 */
const piece = fc.oneof(
  fc.constantFrom('the ', 'cat', ' sat.', '\n', 'it\'s', 'don’t', '-', 'x = f(a[i]);', '{"a": [1]}', '<div>', ' ', '日本語', 'ひらがな', 'カタカナ', '한국어', '⺀⺁', '〇', '𠀀𝒜', '\ud800', '\udc00', 'é', 'Ω', '٣', '漢'),
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
);
const text = fc.array(piece, { maxLength: 60 }).map((pieces) => pieces.join(''));

describe('classifyContent', () => {
  it('classifies any text as the regex matches do', () => {
    fc.assert(
      fc.property(text, (value) => {
        expect(classifyContent(value)).toBe(classifiedByMatches(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('classifies a long text by its start and end, as the matches do', () => {
    fc.assert(
      fc.property(text, text, fc.integer({ min: 0, max: 6000 }), (head, tail, filler) => {
        const value = head + '漢'.repeat(filler) + tail + 'a'.repeat(filler);
        expect(classifyContent(value)).toBe(classifiedByMatches(value));
      }),
      { numRuns: 300 },
    );
  });

  it('tells the kinds apart', () => {
    expect(classifyContent('The quick brown fox jumps over the lazy dog, and it’s done.')).toBe('prose');
    expect(classifyContent('function f(a) { return a[0] <= 1 ? g(a) : [a]; }')).toBe('code');
    expect(classifyContent('{"name": "sliding-context", "tokens": [1, 2]}')).toBe('json');
    expect(classifyContent('日本語のテキストです。これは文章です。')).toBe('cjk');
    expect(classifyContent('12345 67890 ### ~~~')).toBe('other');
  });
});
