import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../message/deep-freeze.js';
import { RequestBodyBytes } from './request-body-bytes.js';

/** An element of a body's array: any JSON value, frozen all through or not; now and then `undefined`. */
const element = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(fc.jsonValue(), fc.boolean()).map(([value, frozen]) => (frozen ? deepFreeze(value) : value)) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);
/** A body: top-level fields of JSON values, arrays of elements, and `undefined` (left out). */
const body = fc.dictionary(
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.oneof(fc.jsonValue(), fc.array(element, { maxLength: 6 }), fc.constant(undefined)),
  { maxKeys: 6 },
);
const stringified = (value: unknown) => Buffer.from(JSON.stringify(value));

describe('a request body as bytes', () => {
  it('is JSON.stringify\'s text, byte for byte, the first time and with its elements kept', () => {
    const bytes = new RequestBodyBytes();
    fc.assert(
      fc.property(body, (value) => {
        expect(bytes.of(value).equals(stringified(value))).toBe(true);
        // Again: the frozen elements' bytes are those kept.
        expect(bytes.of(value).equals(stringified(value))).toBe(true);
        // The same elements in another body, another order, beside others.
        const arrays = Object.values(value).filter(Array.isArray);
        const other = { model: 'm', messages: arrays.flat().reverse(), stream: false };
        expect(bytes.of(other).equals(stringified(other))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('serializes again an element that is not frozen, as it is now', () => {
    const bytes = new RequestBodyBytes();
    const message = { role: 'user', content: 'first' };
    const frozen = deepFreeze({ role: 'assistant', content: 'kept' });
    expect(bytes.of({ messages: [message, frozen] }).toString()).toBe('{"messages":[{"role":"user","content":"first"},{"role":"assistant","content":"kept"}]}');
    message.content = 'changed';
    expect(bytes.of({ messages: [frozen, message] }).toString()).toBe('{"messages":[{"role":"assistant","content":"kept"},{"role":"user","content":"changed"}]}');
  });

  it('gives toJSON the key or index it gets in JSON.stringify, and what it leaves out is left out there too', () => {
    const bytes = new RequestBodyBytes();
    const keyed = { toJSON: (key: string) => `at ${key}` };
    const nothing = { toJSON: () => undefined };
    const date = new Date(Date.UTC(2026, 10, 27));
    const values = [
      { messages: [keyed, keyed, nothing, date, () => 1], at: keyed, gone: nothing, when: date },
      { text: 'lone \ud800 surrogate, pair 😀, quote " and \\ and \u2028' },
      { toJSON: () => ({ replaced: true }) },
      {},
      { skipped: undefined },
      Object.assign(Object.create(null) as object, { bare: [1, 2] }),
    ];
    for (const value of values) expect(bytes.of(value).toString()).toBe(JSON.stringify(value));
  });

  it('fails as JSON.stringify does on a cycle', () => {
    const cyclic: Record<string, unknown> = { role: 'user' };
    cyclic.self = cyclic;
    expect(() => new RequestBodyBytes().of({ messages: [cyclic] })).toThrow(TypeError);
    expect(() => new RequestBodyBytes().of({ options: cyclic })).toThrow(TypeError);
  });
});
