import { describe, expect, it } from 'vitest';
import type { TextEncoding } from './encoding/text-encoding.js';
import { createTextMeasurer } from './measure.js';
import { storedCountCounter } from './stored-count-counter.js';

const target = { provider: 'openai', model: 'gpt-4o' } as const;

describe('a count that cannot be made is a SlidingContextError with a code', () => {
  it('NO_COUNTER: a stored count is missing and there is no counter to fall back on', () => {
    const counter = storedCountCounter({ messages: new Map() });
    expect(() => counter.countMessage({ ...target, message: { role: 'user', content: 'hi' } }))
      .toThrow(expect.objectContaining({ name: 'SlidingContextError', code: 'NO_COUNTER', message: 'No stored count for a user message, and no counter to make one.' }));
  });

  it('ENCODER_FAILED: an encoder answers no tokens for text', () => {
    const broken: TextEncoding = { name: 'o200k_base', countText: () => 0 };
    const measure = createTextMeasurer({ encoding: broken, base64CharactersPerToken: 4 });
    expect(() => measure('hello')).toThrow(expect.objectContaining({ name: 'SlidingContextError', code: 'ENCODER_FAILED' }));
  });
});
