import { describe, expect, it } from 'vitest';
import { neutralizeControlCharacters } from './neutralize-control-characters.js';

describe('neutralizeControlCharacters', () => {
  it('shows ESC, BEL, DEL and C1 controls as \\xNN, and keeps newlines, tabs and other text', () => {
    expect(neutralizeControlCharacters('a\u001b]0;pwned\u0007b\u001b[2J\u009b1m\u007f\r\u0000')).toBe('a\\x1b]0;pwned\\x07b\\x1b[2J\\x9b1m\\x7f\\x0d\\x00');
    expect(neutralizeControlCharacters('line one\n\tline two · ünïcode ✓')).toBe('line one\n\tline two · ünïcode ✓');
  });

  it('shows the line and paragraph separators and the direction overrides and isolates as \\uNNNN', () => {
    expect(neutralizeControlCharacters('a\u2028b\u2029c\u202ed\u202ae\u2066f\u2069 עברית')).toBe('a\\u2028b\\u2029c\\u202ed\\u202ae\\u2066f\\u2069 עברית');
  });
});
