import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isFrozenMessageCopy } from '../conversation/same-message-content.js';
import type { ModelMessage } from '../message/message.js';
import { buildRequest, convertFrom } from '../providers/wire-format.js';
import { conversationArbitrary, withoutEvents } from '../testing/conversation-arbitrary.js';
import { TailConversion } from './tail-conversion.js';

const FORMATS = ['openai-chat', 'anthropic', 'openai-responses'] as const;
const FIELD = { 'openai-chat': 'messages', 'anthropic': 'messages', 'openai-responses': 'input' } as const;

/** A conversion's result, or the message of the error it threw. */
function outcome(convert: () => unknown): unknown {
  try {
    return { converted: convert() };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** A body with its conversation cut to `length` messages, the rest of it kept. */
const cut = (body: Record<string, unknown>, field: string, length: number) => ({ ...body, [field]: (body[field] as unknown[]).slice(0, length) });

describe.each(FORMATS)('%s bodies converted after earlier bodies of their conversation', (format) => {
  const field = FIELD[format];
  it('convert as the whole body does, whatever earlier prefixes were converted before', () => {
    fc.assert(
      fc.property(conversationArbitrary({ maxExchanges: 6, reusedIds: true }), fc.array(fc.nat(), { maxLength: 3 }), (conversation, cuts) => {
        const body = buildRequest(format, { model: 'test-model', system: conversation.system, tools: conversation.tools, messages: withoutEvents(conversation.messages) }) as Record<string, unknown>;
        const wire = body[field];
        if (!Array.isArray(wire)) return;
        const conversions = new TailConversion();
        // Earlier turns of the conversation, as JSON again (new objects, as a client sends them).
        for (const length of cuts.map((value) => value % (wire.length + 1)).sort((a, b) => a - b)) {
          outcome(() => conversions.convert(format, JSON.parse(JSON.stringify(cut(body, field, length))) as Record<string, unknown>));
        }
        const again = JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
        expect(outcome(() => conversions.convert(format, again))).toEqual(outcome(() => convertFrom(format, again)));
      }),
      { numRuns: 200 },
    );
  });
});

describe('a tail converted alone', () => {
  it('gives each message as a frozen copy, the same object in each later conversion that holds it', () => {
    const conversions = new TailConversion();
    const messages = [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }];
    const first = conversions.convert('openai-chat', { model: 'm', messages: structuredClone(messages) }).messages;
    const second = conversions.convert('openai-chat', { model: 'm', messages: [...structuredClone(messages), { role: 'user', content: 'and then?' }] }).messages;
    expect(second.slice(0, first.length)).toHaveLength(first.length);
    second.slice(0, first.length).forEach((message, index) => {
      expect(message).toBe(first[index]);
    });
    for (const message of second) {
      expect(Object.isFrozen(message)).toBe(true);
      expect(isFrozenMessageCopy(message as ModelMessage)).toBe(true);
    }
    expect(() => {
      (second.at(-1) as { content: unknown }).content = 'changed';
    }).toThrow(TypeError);
  });

  it('names a bad message by its place in the whole body', () => {
    const conversions = new TailConversion();
    const messages = [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }];
    conversions.convert('openai-chat', { model: 'm', messages });
    const bad = { model: 'm', messages: [...messages, { role: 'tool', tool_call_id: 'missing', content: 'x' }] };
    expect(outcome(() => conversions.convert('openai-chat', bad))).toEqual({ error: expect.stringContaining('messages[3]') as unknown });
    expect(outcome(() => conversions.convert('openai-chat', bad))).toEqual(outcome(() => convertFrom('openai-chat', bad)));
  });

  it('takes a tool result whose call came in an earlier body (Anthropic)', () => {
    const conversions = new TailConversion();
    const messages = [
      { role: 'user', content: 'read it' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call-1', name: 'read_file', input: {} }] },
    ];
    conversions.convert('anthropic', { model: 'm', max_tokens: 10, messages });
    const next = { model: 'm', max_tokens: 10, messages: [...messages, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call-1', content: 'text' }] }] };
    expect(conversions.convert('anthropic', next)).toEqual(convertFrom('anthropic', next));
  });

  it('leaves the system messages after the first user message where the whole body puts them (Anthropic)', () => {
    const first = [{ role: 'user', content: 'go' }, { role: 'system', content: 'environment: linux' }];
    for (const next of [[{ role: 'system', content: 'more environment' }, { role: 'assistant', content: 'ok' }], [{ role: 'user', content: 'again' }]]) {
      const body = { model: 'm', max_tokens: 10, messages: [...first, ...next] };
      const reused = new TailConversion();
      reused.convert('anthropic', { model: 'm', max_tokens: 10, messages: first });
      expect(reused.convert('anthropic', body)).toEqual(convertFrom('anthropic', body));
    }
  });
});
