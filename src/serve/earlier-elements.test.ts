import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EarlierElements } from './earlier-elements.js';
import { parseJsonBody } from './parse-json-body.js';

/** Elements whose bytes start with each other's: a reused element must end where its bytes end. */
const element = fc.oneof(
  fc.constantFrom<unknown>(1, 12, 123, 1.5, -1, 'a', 'ab', 'a"b', true, null, [], [1], [1, 2], {}, { a: 1 }, { a: 12 }, { a: [1, { b: 'c' }] }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** How a body is spaced: JSON.stringify's indent, or none. */
const spacing = fc.constantFrom(undefined, 0, 1, 2, '\t');

const text = (value: unknown, indent: string | number | undefined) => JSON.stringify(value, null, indent);

/** A conversation's bodies: each starts with part of the one before it and adds elements, in one of a few arrays. */
const bodies = fc.array(
  fc.record({ key: fc.constantFrom('messages', 'input', 'tools'), kept: fc.nat(), added: fc.array(element, { maxLength: 4 }), indent: spacing }),
  { minLength: 1, maxLength: 8 },
);

describe('parseJsonBody with the elements of earlier bodies', () => {
  it('gives what JSON.parse gives, for bodies that start with earlier ones, however they are spaced', () => {
    fc.assert(
      fc.property(bodies, (steps) => {
        const earlier = new EarlierElements();
        const arrays = new Map<string, unknown[]>();
        for (const { key, kept, added, indent } of steps) {
          const before = arrays.get(key) ?? [];
          const elements = [...before.slice(0, kept % (before.length + 1)), ...added];
          arrays.set(key, elements);
          const body = text({ model: 'm', [key]: elements, stream: false }, indent);
          expect(parseJsonBody(Buffer.from(body), 'the request body', earlier)).toStrictEqual(JSON.parse(body));
        }
      }),
      { numRuns: 400 },
    );
  });

  it('gives the next turn the earlier values themselves, frozen, and parses only the added elements', () => {
    const earlier = new EarlierElements();
    const history = [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hi' }];
    const first = parseJsonBody(Buffer.from(JSON.stringify({ model: 'm', messages: history })), 'the request body', earlier) as { messages: unknown[] };
    const next = parseJsonBody(
      Buffer.from(JSON.stringify({ model: 'm', messages: [...history, { role: 'assistant', content: 'hello' }, { role: 'user', content: 'bye' }] })),
      'the request body',
      earlier,
    ) as { messages: unknown[] };
    expect(next.messages[0]).toBe(first.messages[0]);
    expect(next.messages[1]).toBe(first.messages[1]);
    expect(Object.isFrozen(next.messages[1])).toBe(true);
    expect(next.messages[3]).toEqual({ role: 'user', content: 'bye' });
    expect(() => {
      (next.messages[1] as { content: string }).content = 'changed';
    }).toThrow(TypeError);
  });

  it('parses an element again when its bytes changed and their length did not', () => {
    const earlier = new EarlierElements();
    const body = (content: string) => Buffer.from(JSON.stringify({ messages: [{ role: 'user', content }, { role: 'assistant', content: 'ok' }] }));
    const first = parseJsonBody(body('aaaa'), 'the request body', earlier) as { messages: unknown[] };
    const second = parseJsonBody(body('aaab'), 'the request body', earlier) as { messages: unknown[] };
    expect(second.messages[0]).toEqual({ role: 'user', content: 'aaab' });
    expect(second.messages[0]).not.toBe(first.messages[0]);
  });

  it('takes the elements before one that only starts with an earlier element, and parses that one', () => {
    const earlier = new EarlierElements();
    const first = parseJsonBody(Buffer.from('{"messages":[{"a":1},1]}'), 'the request body', earlier) as { messages: unknown[] };
    const second = parseJsonBody(Buffer.from('{"messages":[{"a":1},12]}'), 'the request body', earlier) as { messages: unknown[] };
    expect(second.messages).toEqual([{ a: 1 }, 12]);
    expect(second.messages[0]).toBe(first.messages[0]);
  });

  it('keeps what it remembers apart from the array the caller was given', () => {
    const earlier = new EarlierElements();
    const body = Buffer.from(JSON.stringify({ messages: ['a', 'b'] }));
    const first = parseJsonBody(body, 'the request body', earlier) as { messages: unknown[] };
    first.messages.splice(0, 2, 'changed');
    expect(parseJsonBody(body, 'the request body', earlier)).toEqual({ messages: ['a', 'b'] });
  });

  it('remembers nothing of a body that is not JSON, and gives its error', () => {
    const earlier = new EarlierElements();
    const parse = (body: string) => parseJsonBody(Buffer.from(body), 'the request body', earlier);
    const good = parse('{"messages":[{"a":1}]}') as { messages: unknown[] };
    expect(() => parse('{"messages":[{"a":1},{"b":2}]} x')).toThrow(/request body/);
    // The earlier good body is still the one the next turn starts with.
    expect((parse('{"messages":[{"a":1},{"c":3}]}') as { messages: unknown[] }).messages[0]).toBe(good.messages[0]);
  });

  it('drops the least recently used arrays past its limit', () => {
    const earlier = new EarlierElements();
    const body = (index: number) => Buffer.from(JSON.stringify({ messages: [{ conversation: index }] }));
    const first = parseJsonBody(body(0), 'the request body', earlier) as { messages: unknown[] };
    expect((parseJsonBody(body(0), 'the request body', earlier) as { messages: unknown[] }).messages[0]).toBe(first.messages[0]);
    for (let index = 1; index <= 600; index++) parseJsonBody(body(index), 'the request body', earlier);
    const again = parseJsonBody(body(0), 'the request body', earlier) as { messages: unknown[] };
    expect(again.messages[0]).toEqual(first.messages[0]);
    expect(again.messages[0]).not.toBe(first.messages[0]);
  });
});
