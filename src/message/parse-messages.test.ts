import { describe, expect, it } from 'vitest';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import { parseMessages, parseToolDefinitions } from './parse-messages.js';

function errorOf(run: () => unknown): SlidingContextError {
  try {
    run();
  } catch (error) {
    if (error instanceof SlidingContextError) return error;
    throw error;
  }
  throw new Error('expected a SlidingContextError');
}

const valid = [
  { role: 'system', content: 'Be brief.' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'Look at this' },
      { type: 'image', image: 'https://example.com/a.png' },
    ],
  },
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'The user wants…' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: 'a.ts' } },
    ],
    providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'c1',
        toolName: 'read_file',
        output: { type: 'json', value: { ok: true } },
      },
    ],
  },
  { role: 'event', kind: 'mark', label: 'before-refactor' },
  { role: 'assistant', content: 'Done.', id: 'm6' },
];

describe('parseMessages', () => {
  it('accepts the AI SDK ModelMessage shapes and events, unchanged', () => {
    expect(parseMessages(valid)).toEqual(valid);
  });

  it('names the message index and field of a wrong type', () => {
    const messages = structuredClone(valid) as unknown[];
    messages[7] = {
      role: 'assistant',
      content: [
        { type: 'text', text: 'x' },
        { type: 'tool-call', toolCallId: 42, toolName: 'a', input: {} },
      ],
    };
    messages[6] = { role: 'user', content: 'hi' };
    const error = errorOf(() => parseMessages(messages));
    expect(error.code).toBe('INVALID_MESSAGE');
    expect(error.message).toContain('messages[7].content[1].toolCallId: expected string');
  });

  it('names an unknown role and lists the known ones', () => {
    const error = errorOf(() => parseMessages([{ role: 'developer', content: 'x' }]));
    expect(error.code).toBe('INVALID_MESSAGE');
    expect(error.message).toContain(
      'messages[0].role: expected "system" | "user" | "assistant" | "tool" | "event", received "developer"',
    );
  });

  it('names an unknown part type inside the content array', () => {
    const error = errorOf(() =>
      parseMessages([{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'audio' }] }]),
    );
    expect(error.message).toContain('messages[0].content[1].type: expected');
  });

  it('names a missing field and an unknown field', () => {
    expect(
      errorOf(() =>
        parseMessages([
          {
            role: 'tool',
            content: [
              { type: 'tool-result', toolCallId: 'a', toolName: 'b', output: { type: 'text' } },
            ],
          },
        ]),
      ).message,
    ).toContain(
      'messages[0].content[0].output.value: expected string, received nothing (the field is missing)',
    );
    expect(
      errorOf(() => parseMessages([{ role: 'user', content: 'x', name: 'bob' }])).message,
    ).toContain('messages[0].name: unknown field');
  });

  it('names content of the wrong kind', () => {
    expect(errorOf(() => parseMessages([{ role: 'user', content: 5 }])).message).toContain(
      'messages[0].content: expected string or array, received number 5',
    );
  });

  it('refuses a mark or rewind label with no visible character, and keeps a mark without one', () => {
    for (const label of ['', '   ']) {
      for (const kind of ['mark', 'rewind']) {
        const error = errorOf(() => parseMessages([{ role: 'user', content: 'x' }, { role: 'event', kind, label }]));
        expect(error.code).toBe('INVALID_MESSAGE');
        expect(error.message).toContain('messages[1].label: a mark or rewind label needs at least one visible character');
      }
    }
    expect(parseMessages([{ role: 'event', kind: 'mark' }, { role: 'event', kind: 'rewind', label: ' m ' }])).toHaveLength(2);
  });

  it('rejects an unknown event kind and a non-array', () => {
    expect(errorOf(() => parseMessages([{ role: 'event', kind: 'undo' }])).message).toContain(
      'messages[0].kind: expected "clear"',
    );
    expect(errorOf(() => parseMessages({ messages: [] })).message).toContain(
      'messages: expected array',
    );
  });
});

describe('parseToolDefinitions', () => {
  it('accepts { name, description?, inputSchema } and names a bad field', () => {
    expect(parseToolDefinitions([{ name: 'f', inputSchema: { type: 'object' } }])).toHaveLength(1);
    expect(errorOf(() => parseToolDefinitions([{ name: 'f' }])).message).toContain(
      'tools[0].inputSchema: expected record',
    );
  });
});
