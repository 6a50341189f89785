import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutToBytes, estimatedTokens, queryWords, searchExcerpt } from './search-excerpt.js';

describe('searchExcerpt', () => {
  it('takes the words of a query, without excluded ones and "or", compounds kept whole', () => {
    expect(queryWords('"dueDate migration" or src/db/schema.ts -test')).toEqual(['duedate', 'migration', 'src/db/schema.ts']);
  });

  it('shows the text around the first word found, whole words, whitespace folded, cuts marked', () => {
    const text = `${'alpha beta gamma\n'.repeat(20)}the migrations failed here\n${'delta epsilon\n'.repeat(20)}`;
    const excerpt = searchExcerpt(text, 'migration', 120);
    expect(excerpt).toMatch(/^…[a-z]/);
    expect(excerpt).toMatch(/[a-z]…$/);
    expect(excerpt).toContain('the migrations failed here');
    expect(excerpt).not.toContain('\n');
    expect(searchExcerpt('short text', 'absent', 120)).toBe('short text');
  });

  it('property: a word planted anywhere is in the excerpt, which stays within its length', () => {
    const word = fc.stringMatching(/^[a-z]{4,12}$/);
    const filler = fc.array(fc.constantFrom('lorem', 'ipsum', 'dolor', 'sit', 'amet', '\n', '  '), { maxLength: 400 }).map((words) => words.join(' '));
    fc.assert(fc.property(filler, word, filler, (before, planted, after) => {
      const excerpt = searchExcerpt(`${before} q${planted} ${after}`, `q${planted}`, 240);
      expect(excerpt).toContain(`q${planted}`);
      expect(excerpt.length).toBeLessThanOrEqual(242);
    }));
  });

  it('cuts text within a number of UTF-8 bytes without splitting a character', () => {
    expect(cutToBytes('héllo', 2)).toBe('h');
    expect(cutToBytes('héllo', 3)).toBe('hé');
    expect(cutToBytes('a😀b', 4)).toBe('a');
    expect(cutToBytes('a😀b', 5)).toBe('a😀');
    expect(estimatedTokens('😀😀')).toBe(2);
  });
});
