import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSlidingContextError } from '../errors/sliding-context-error.js';
import { MAX_JSON_DEPTH, parseJsonText } from '../message/parse-json-text.js';
import { parseJsonBody, parseJsonPieces } from './parse-json-body.js';

/** A parse's value, or its error's code and message. */
function outcome(parse: () => unknown): unknown {
  try {
    return { value: parse() };
  } catch (error) {
    return { error: isSlidingContextError(error) ? `${error.code}: ${error.message}` : String(error) };
  }
}

/** Both parses of the same bytes: piece by piece, and the whole text at once. */
function bothOf(bytes: Buffer): { pieces: unknown; whole: unknown } {
  return { pieces: outcome(() => parseJsonBody(bytes, 'the request body')), whole: outcome(() => parseJsonText(bytes.toString('utf8'), 'the request body')) };
}

const indents = fc.constantFrom(undefined, 0, 2, '\t', ' \r\n ');

describe('parseJsonPieces', () => {
  it('takes apart any JSON value, however it is spaced, into what JSON.parse makes of it', () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary', maxDepth: 6 }), indents, (value, indent) => {
        const text = typeof indent === 'string' && indent.includes('\r') ? JSON.stringify(value, null, 1).replaceAll('\n', indent) : JSON.stringify(value, null, indent);
        const pieces = parseJsonPieces(Buffer.from(text));
        expect(pieces).not.toBeUndefined();
        expect(pieces).toStrictEqual(JSON.parse(text));
      }),
      { numRuns: 500 },
    );
  });

  it('takes apart a request body member by member: escaped quotes, brackets in strings, multi-byte text', () => {
    const body = {
      model: 'gpt-4o',
      messages: [
        { role: 'user', content: 'a "quoted" \\ backslash\\", then [ and { that close nothing' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'run', arguments: '{"cmd":"ls ]}"}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'naïve café 日本語 🧪 \u2028' },
      ],
      tools: [],
      stream: true,
      temperature: -0.5e-3,
      empty: {},
      nothing: null,
    };
    const text = JSON.stringify(body, null, 1);
    expect(parseJsonPieces(Buffer.from(text))).toStrictEqual(body);
  });

  it('makes a `__proto__` key an own property, as JSON.parse does, at every depth it takes apart', () => {
    const text = '{"__proto__":{"polluted":true},"messages":[{"__proto__":[1]}]}';
    const parsed = parseJsonPieces(Buffer.from(text)) as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.keys(parsed)).toEqual(['__proto__', 'messages']);
    expect(parsed).toStrictEqual(JSON.parse(text));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('keeps the last of a repeated key, as JSON.parse does', () => {
    expect(parseJsonPieces(Buffer.from('{"model":"a","model":"b"}'))).toEqual({ model: 'b' });
  });

  it('takes apart nesting up to the limit, and leaves deeper nesting to the whole parse', () => {
    const nested = (depth: number) => Buffer.from(`{"messages":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`);
    expect(parseJsonPieces(nested(MAX_JSON_DEPTH))).not.toBeUndefined();
    expect(parseJsonPieces(nested(MAX_JSON_DEPTH + 1))).toBeUndefined();
  });

  it.each([
    ['a trailing comma', '{"model":"m",}'],
    ['a missing comma', '{"model":"m" "stream":true}'],
    ['an empty element', '{"messages":[1,,2]}'],
    ['a missing value', '{"model":}'],
    ['a bracket of the wrong kind', '{"messages":[1,2}]'],
    ['text after the value', '{"model":"m"} x'],
    ['an unterminated string', '{"model":"m'],
    ['a key that is not a string', '{model:"m"}'],
    ['an unescaped control character', '{"model":"a\u0001b"}'],
  ])('gives up on %s', (_, text) => {
    expect(parseJsonPieces(Buffer.from(text))).toBeUndefined();
  });
});

describe('parseJsonBody', () => {
  it('gives what parseJsonText gives for the same bytes, value or error, for JSON a character or two from valid', () => {
    const nearlyJson = fc
      .tuple(fc.jsonValue({ maxDepth: 4 }), fc.array(fc.tuple(fc.nat(), fc.constantFrom('', '"', '\\', ',', ':', '[', ']', '{', '}', ' ', '1', '\u0000', '\u00e9')), { minLength: 1, maxLength: 3 }))
      .map(([value, edits]) => {
        let text = JSON.stringify({ model: 'm', messages: [value] });
        for (const [at, inserted] of edits) {
          const index = at % (text.length + 1);
          // Each edit replaces one character (or removes it, when `inserted` is empty).
          text = text.slice(0, index) + inserted + text.slice(index + 1);
        }
        return text;
      });
    fc.assert(
      fc.property(nearlyJson, (text) => {
        const { pieces, whole } = bothOf(Buffer.from(text));
        expect(pieces).toStrictEqual(whole);
      }),
      { numRuns: 2000 },
    );
  });

  it('gives what parseJsonText gives for arbitrary bytes that are UTF-8, and refuses those that are not', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const { pieces, whole } = bothOf(Buffer.from(bytes));
        if (isUtf8(bytes)) expect(pieces).toStrictEqual(whole);
        else if ('error' in (whole as object)) expect(pieces).toStrictEqual(whole);
        else expect(pieces).toEqual({ error: expect.stringMatching(/^INVALID_JSON: the request body is not valid UTF-8 \(byte \d+\)/) });
      }),
      { numRuns: 1000 },
    );
  });

  it.each([
    ['too deep', Buffer.from(`{"messages":\n${'['.repeat(300)}${']'.repeat(300)}}`), 'INPUT_TOO_DEEP'],
    ['binary', Buffer.concat([Buffer.from('{"model":"'), Buffer.alloc(64, 0xff), Buffer.from('"}')]), 'INPUT_NOT_TEXT'],
    ['with a NUL past the first bytes', Buffer.from(`{"model":"m","messages":["${'x'.repeat(20_000)}\u0000"]}`), 'INPUT_NOT_TEXT'],
    ['malformed', Buffer.from('{"model": "gpt-4o", "messages": ['), 'INVALID_JSON'],
  ])('refuses a body %s as parseJsonText does, with the same error', (_, bytes, code) => {
    const { pieces, whole } = bothOf(bytes);
    expect(pieces).toStrictEqual(whole);
    expect(pieces).toEqual({ error: expect.stringMatching(new RegExp(`^${code}: `)) });
  });

  it('refuses bytes that are not UTF-8 inside a string, naming the first one (a U+FFFD of the text\'s own before it is no fault)', () => {
    const head = '{"model":"m","messages":[{"role":"user","content":"\ufffd caf';
    const bytes = Buffer.concat([Buffer.from(head), Buffer.from([0xe9]), Buffer.from('"}]}')]);
    expect(outcome(() => parseJsonBody(bytes, 'the request body'))).toEqual({ error: `INVALID_JSON: the request body is not valid UTF-8 (byte ${Buffer.byteLength(head)}); JSON must be UTF-8.` });
    // The same text in UTF-8 is read.
    const text = Buffer.from(`${head}\u00e9"}]}`);
    expect(outcome(() => parseJsonBody(text, 'the request body'))).toEqual({ value: { model: 'm', messages: [{ role: 'user', content: '\ufffd caf\u00e9' }] } });
  });
});
