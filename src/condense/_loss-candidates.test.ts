import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bareSymbolsIn, identifiersIn, mayShapeSymbol, namesPath, namesSymbol } from './_loss-candidates.js';
import { pathsIn } from './_text-paths.js';

/** Words of the characters that make paths, symbols, URLs and numbers, and of a few that make none. */
const word = fc.string({ unit: fc.constantFrom(...Array.from('aZk_`()./~-@+:$#0123456789%\'"=,[]étsjmd')), maxLength: 14 });

describe('the quick tests of a word that the loss report runs before searching it', () => {
  // The word filters skip the full search for words that cannot hold a path or a symbol: they must never skip one that does.
  it('a word names a path exactly when the path search finds one in it', () => {
    fc.assert(fc.property(word, (text) => namesPath(text) === (pathsIn(text).length > 0)), { numRuns: 3000 });
  });

  it('a word names a code symbol exactly when the symbol search finds one in it', () => {
    fc.assert(fc.property(word, (text) => namesSymbol(text) === (identifiersIn(text).length > 0)), { numRuns: 3000 });
  });

  it('a word shapes a bare code symbol only when the quick shape test lets it through', () => {
    fc.assert(fc.property(word, (text) => bareSymbolsIn(text).length === 0 || mayShapeSymbol(text)), { numRuns: 3000 });
  });

  it('finds the symbols of prose among words the shape test leaves out', () => {
    const prose = 'the handler reads rows, then parseArgs and max_tokens and run() and HttpClient; plain words 120 end.';
    expect(identifiersIn(prose)).toEqual(['parseArgs', 'max_tokens', 'run', 'HttpClient']);
  });

  it('finds what the searches find in words written as agents write them', () => {
    for (const text of ['src/a.ts', 'package.json', '../up', 'parseArgs', 'ParseArgs', 'max_tokens', 'run()', '`x.y`']) {
      expect(namesPath(text) || namesSymbol(text), text).toBe(true);
    }
    for (const text of ['120', '3.5', 'plain', 'done.', '50ms']) expect(namesPath(text) || namesSymbol(text), text).toBe(false);
  });
});
