import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collapseWhitespace } from './_collapse-whitespace.js';

/** Text of words and every kind of white space, runs of it included. */
const text = fc.string({ unit: fc.constantFrom('a', 'b', '.', ' ', '  ', '\n', '\r\n', '\t', '\u00a0', '\u2028', '\u3000', '\ufeff', 'é', '😀'), maxLength: 40 });

describe('collapseWhitespace', () => {
  it('gives what replacing each run of white space with a space gives', () => {
    fc.assert(fc.property(text, (value) => collapseWhitespace(value) === value.replace(/\s+/g, ' ')), { numRuns: 5000 });
  });

  it('collapses runs, lone non-space white space, and white space at either end', () => {
    expect(collapseWhitespace(' a  b\tc\n\nd \u00a0e ')).toBe(' a b c d e ');
  });
});
