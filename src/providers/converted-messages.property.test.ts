import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { conversationArbitrary, withoutEvents } from '../testing/conversation-arbitrary.js';
import { ConvertedMessages } from './converted-messages.js';
import type { PromptCacheHints } from './prompt-cache-hints.js';
import { buildRequest } from './wire-format.js';

/** No hints, or hints with or without the stable prefix. */
const hints: fc.Arbitrary<PromptCacheHints | undefined> = fc.option(fc.record({ stablePrefixMessages: fc.option(fc.nat(12), { nil: undefined }), key: fc.constant('agent-1') }), { nil: undefined });

const FORMATS = ['openai-chat', 'openai-responses', 'anthropic', 'google'] as const;
const FIELD = { 'openai-chat': 'messages', 'openai-responses': 'input', 'anthropic': 'messages', 'google': 'contents' } as const;

describe.each(FORMATS)('%s bodies built from messages converted once', (format) => {
  it('equal the bodies built without, request after request, as the window slides', () => {
    fc.assert(
      fc.property(conversationArbitrary({ maxExchanges: 6, reusedIds: true }), fc.nat(), fc.array(hints, { minLength: 3, maxLength: 3 }), (conversation, from, cache) => {
        const messages = withoutEvents(conversation.messages);
        const converted = new ConvertedMessages();
        const build = (window: typeof messages, hinted: PromptCacheHints | undefined, kept?: ConvertedMessages) =>
          buildRequest(format, { model: 'test-model', system: conversation.system, tools: conversation.tools, messages: window, cache: hinted, converted: kept });
        // The whole conversation, then a window that starts later (messages already converted), then the whole again;
        // each with its own cache hints (Anthropic marks its body by them: what one marks must not stay for the next).
        for (const [index, window] of [messages, messages.slice(from % (messages.length + 1)), messages].entries()) {
          expect(build(window, cache[index], converted)).toEqual(build(window, cache[index]));
        }
      }),
      { numRuns: 150 },
    );
  });
});

/** A question, a tool call and its result. */
const TOOL_STEP = [
  { role: 'user' as const, content: 'Run the tests.' },
  { role: 'assistant' as const, content: [{ type: 'tool-call' as const, toolCallId: 'call_1', toolName: 'run_tests', input: { path: 'src' } }] },
  { role: 'tool' as const, content: [{ type: 'tool-result' as const, toolCallId: 'call_1', toolName: 'run_tests', output: { type: 'text' as const, value: 'ok' } }] },
];

describe.each(['openai-chat', 'openai-responses'] as const)('%s elements converted once', (format) => {
  it('are the same frozen objects in the next body, and cannot be changed', () => {
    const converted = new ConvertedMessages();
    const messages = [...TOOL_STEP];
    const elements = (window: typeof messages) => (buildRequest(format, { model: 'm', messages: window, converted }) as Record<string, unknown[]>)[FIELD[format]] ?? [];
    const first = elements(messages);
    const second = elements([...messages, { role: 'user', content: 'Again.' }]);
    expect(first.length).toBeGreaterThanOrEqual(messages.length);
    first.forEach((element, index) => {
      expect(second[index]).toBe(element);
      expect(Object.isFrozen(element)).toBe(true);
    });
    expect(() => {
      (first[0] as { content: unknown }).content = 'changed';
    }).toThrow(TypeError);
    // Without it, each body has its own.
    const own = (buildRequest(format, { model: 'm', messages }) as Record<string, unknown[]>)[FIELD[format]] ?? [];
    expect(own[0]).not.toBe(first[0]);
    expect(own).toEqual(first);
  });
});

describe('Anthropic messages converted once', () => {
  it('are the same frozen objects in the next body, except those it joins or marks, which are copies', () => {
    const converted = new ConvertedMessages();
    const messages = [...TOOL_STEP];
    const build = (window: typeof messages, cache?: PromptCacheHints) => (buildRequest('anthropic', { model: 'm', messages: window, converted, cache }) as { messages: unknown[] }).messages;
    const first = build(messages);
    for (const element of first) expect(Object.isFrozen(element)).toBe(true);
    // Marked at the stable prefix (the first message): a copy. The end is marked by the body's own marker.
    const marked = build(messages, { stablePrefixMessages: 1 });
    expect(marked[0]).not.toBe(first[0]);
    expect(marked[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'Run the tests.', cache_control: { type: 'ephemeral' } }] });
    expect(marked.slice(1)).toEqual(first.slice(1));
    expect(marked[1]).toBe(first[1]);
    // The user's next question joins the tool result's turn: a new message; the others are the same.
    const next = build([...messages, { role: 'user', content: 'Again.' }]);
    expect(next.slice(0, 2)).toEqual(first.slice(0, 2));
    expect(next[0]).toBe(first[0]);
    expect(next[1]).toBe(first[1]);
    expect(next[2]).not.toBe(first[2]);
    expect(JSON.stringify(next)).not.toContain('cache_control');
  });
});
