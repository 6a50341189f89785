import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findJsonDepthExcess, looksBinary, MAX_JSON_DEPTH, parseJsonText, printableText } from './parse-json-text.js';

/** The nesting depth of a parsed value, walked with a stack of its own. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item !== 'object' || item === null) continue;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return deepest;
}

describe('parseJsonText', () => {
  it('refuses nesting past the limit with INPUT_TOO_DEEP, naming line and column, before anything walks it', () => {
    const text = `{"messages":\n  ${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    expect(() => parseJsonText(text, 'deep.json')).toThrow(expect.objectContaining({ code: 'INPUT_TOO_DEEP', message: expect.stringMatching(/^deep\.json: line 2, column 258 nests .* 256 levels/) }));
    const atLimit = `${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`;
    expect(depthOf(parseJsonText(atLimit, 'x'))).toBe(MAX_JSON_DEPTH);
  });

  it('counts no brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ content: `"\\${'['.repeat(1000)}\\"{{{` });
    expect(findJsonDepthExcess(text)).toBe(-1);
  });

  it('agrees with the parsed depth on any JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 12 }), fc.integer({ min: 1, max: 12 }), (value, limit) => {
        const text = JSON.stringify(value);
        expect(findJsonDepthExcess(text, limit) === -1).toBe(depthOf(value) <= limit);
      }),
    );
  });

  it('refuses binary bytes with INPUT_NOT_TEXT, and escapes control characters in a JSON error', () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]), Buffer.from('IHDR')]).toString('utf8');
    expect(looksBinary(png)).toBe(true);
    expect(looksBinary('{"text": "héllo ✓"}')).toBe(false);
    expect(() => parseJsonText(png, 'image.png')).toThrow(expect.objectContaining({ code: 'INPUT_NOT_TEXT', message: expect.stringMatching(/^image\.png is not text .*expected a JSON file/) }));
    let message = '';
    try {
      parseJsonText('\u001b[31mnot json', 'x.json');
    } catch (error) {
      message = error instanceof Error ? error.message : '';
    }
    expect(message).toMatch(/^x\.json is not valid JSON: /);
    expect(message).not.toContain('\u001b');
    expect(printableText('a\u001b[2Jb\u202e')).toBe('a\\u001b[2Jb\\u202e');
    // A line separator would break a one-line message as a newline does.
    expect(printableText('one\u2028two\u2069')).toBe('one\\u2028two\\u2069');
    // An invisible byte order mark is named too.
    expect(printableText('\ufeff{')).toBe('\\ufeff{');
  });

  it('tells a short binary file by its control characters, and leaves short text in another encoding and coloured output to the JSON parser', () => {
    const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).toString('utf8');
    expect(looksBinary(pngSignature)).toBe(true);
    expect(() => parseJsonText(pngSignature, 'image.png')).toThrow(expect.objectContaining({ code: 'INPUT_NOT_TEXT' }));
    expect(looksBinary(Buffer.from('{"name": "Zoë Müller"}', 'latin1').toString('utf8'))).toBe(false);
    expect(looksBinary('\u001b[31merror\u001b[0m\tline\r\n\f')).toBe(false);
    expect(looksBinary(`{"text": "${'a'.repeat(100)}\u0001"}`)).toBe(false);
  });
});
