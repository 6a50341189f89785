import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyEvents } from '../message/apply-events.js';
import { conversationArbitrary, withoutEvents } from '../testing/conversation-arbitrary.js';
import { expectedRoundTrip } from '../testing/expected-round-trip.js';
import { buildRequest, convertFrom, detectFormat, wireFormats } from './wire-format.js';

describe.each(wireFormats)('%s round trip', (format) => {
  it('any neutral conversation, out and back, is the same up to the documented lossy fields', () => {
    fc.assert(
      fc.property(conversationArbitrary({ maxExchanges: 8 }), (conversation) => {
        const content = { system: conversation.system, tools: conversation.tools, messages: withoutEvents(conversation.messages) };
        const body = buildRequest(format, { model: 'test-model', ...content });
        const back = convertFrom(format, body);
        const expected = expectedRoundTrip(format, content);
        expect({ system: back.system, tools: back.tools, messages: applyEvents(back.messages) }).toEqual({
          system: expected.system,
          tools: expected.tools,
          messages: expected.messages,
        });
      }),
      { numRuns: 300 },
    );
  });

  it('its bodies are detected as this format whenever they show a telling field', () => {
    fc.assert(
      fc.property(conversationArbitrary({ maxExchanges: 4 }), (conversation) => {
        const body = buildRequest(format, { model: 'test-model', system: conversation.system, tools: conversation.tools, messages: withoutEvents(conversation.messages) });
        const detected = detectFormat(body);
        if (format === 'google' || format === 'openai-responses' || format === 'anthropic') expect(detected).toBe(format);
        else expect(['neutral', 'ai-sdk', 'openai-chat']).toContain(detected);
      }),
      { numRuns: 100 },
    );
  });
});
