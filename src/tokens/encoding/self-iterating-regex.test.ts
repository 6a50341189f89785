import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pretokenizePattern } from './pretokenize-pattern.js';
import { selfIteratingRegex } from './self-iterating-regex.js';

const matches = (text: string, regex: RegExp) => [...text.matchAll(regex)].map((match) => [match.index, match[0]]);

describe('selfIteratingRegex', () => {
  it('is what matchAll iterates: its own lastIndex moves with each match (a copy would leave it at 0)', () => {
    const regex = selfIteratingRegex(/\w+/g);
    const iterator = 'alpha beta gamma'.matchAll(regex);
    iterator.next();
    expect(regex.lastIndex).toBe(5);
    iterator.next();
    expect(regex.lastIndex).toBe(10);
  });

  it('finds what the pattern finds, call after call, and starts again from the top after an iteration left midway', () => {
    const plain = pretokenizePattern('o200k_base');
    const regex = selfIteratingRegex(plain);
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), fc.string({ unit: 'grapheme-ascii', maxLength: 40 }), (first, second) => {
        'left midway, never finished'.matchAll(regex).next();
        expect(matches(first, regex)).toEqual(matches(first, plain));
        expect(matches(second, regex)).toEqual(matches(second, plain));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the pattern and its flags, and leaves the pattern passed in alone', () => {
    const pattern = /a(?=b)/giu;
    const regex = selfIteratingRegex(pattern);
    expect([regex.source, regex.flags]).toEqual([pattern.source, pattern.flags]);
    expect(regex).not.toBe(pattern);
    expect(matches('abAB', regex)).toEqual([[0, 'a'], [2, 'A']]);
    expect(matches('abAB', pattern)).toEqual([[0, 'a'], [2, 'A']]);
  });
});
