import { describe, expect, it } from 'vitest';
import { bytesPerTokenCounter, utf8ByteLength } from './bytes-per-token-counter.js';

const target = { provider: 'openai', model: 'gpt-4o' };

describe('bytesPerTokenCounter', () => {
  it('measures UTF-8 bytes exactly', () => {
    for (const text of ['', 'abc', 'é', '的', '😀', 'a\u{10FFFF}b', '\uD800x']) {
      expect(utf8ByteLength(text)).toBe(Buffer.byteLength(text, 'utf8'));
    }
  });

  it('counts ceil(bytes / 4) of the serialized message, flagged inexact', () => {
    const message = { role: 'user' as const, content: 'hello world' };
    const serialized = JSON.stringify(message);
    expect(bytesPerTokenCounter.countMessage({ ...target, message })).toEqual({
      tokens: Math.ceil(serialized.length / 4),
      exact: false,
      method: 'bytes/4',
    });
  });

  it('does not count our own message id, which is never sent', () => {
    const a = bytesPerTokenCounter.countMessage({
      ...target,
      message: { role: 'user', content: 'x' },
    });
    const b = bytesPerTokenCounter.countMessage({
      ...target,
      message: { role: 'user', content: 'x', id: 'a-long-identifier-of-ours' },
    });
    expect(b).toEqual(a);
  });

  it('counts a whole request as exactly the sum of its segments', () => {
    const request = {
      system: 'Be brief.',
      tools: [{ name: 'f', inputSchema: { type: 'object' } }],
      messages: [
        { role: 'user' as const, content: 'a'.repeat(101) },
        { role: 'assistant' as const, content: '的'.repeat(33) },
      ],
    };
    const whole = bytesPerTokenCounter.count({ ...target, request });
    const parts =
      bytesPerTokenCounter.countPreamble({
        ...target,
        system: request.system,
        tools: request.tools,
      }).tokens +
      request.messages.reduce(
        (sum, message) => sum + bytesPerTokenCounter.countMessage({ ...target, message }).tokens,
        0,
      );
    expect(whole.tokens).toBe(parts);
    expect(whole.exact).toBe(false);
  });

  it('never answers 0 for a non-empty message', () => {
    expect(
      bytesPerTokenCounter.countMessage({ ...target, message: { role: 'user', content: '' } })
        .tokens,
    ).toBeGreaterThan(0);
  });
});
