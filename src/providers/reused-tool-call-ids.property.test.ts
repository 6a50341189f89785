import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyEvents } from '../message/apply-events.js';
import { conversationArbitrary, withoutEvents } from '../testing/conversation-arbitrary.js';
import { expectedRoundTrip } from '../testing/expected-round-trip.js';
import { buildRequest, convertFrom, wireFormats } from './wire-format.js';

describe('tool call ids used again once answered', () => {
  it.each(wireFormats)('survive a round trip through %s with their ids as sent', (format) => {
    fc.assert(
      fc.property(conversationArbitrary({ maxExchanges: 6, reusedIds: true }), (conversation) => {
        const content = { system: conversation.system, tools: conversation.tools, messages: withoutEvents(conversation.messages) };
        const back = convertFrom(format, buildRequest(format, { model: 'test-model', ...content }));
        expect(applyEvents(back.messages)).toEqual(expectedRoundTrip(format, content).messages);
      }),
      { numRuns: 60 },
    );
  });
});
