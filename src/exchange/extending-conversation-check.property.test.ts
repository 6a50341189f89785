import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../message/message.js';
import { conversationArbitrary } from '../testing/conversation-arbitrary.js';
import { ExtendingConversationCheck } from './extending-conversation-check.js';
import { requireValidConversation } from './require-valid-conversation.js';

/** What a check gave: the unanswered calls, or the error's code and message. */
function outcome(check: () => unknown): unknown {
  try {
    return { calls: check() };
  } catch (error) {
    return { error: String(error), code: (error as { code?: string }).code };
  }
}

/** Messages that break the pairing or the lead-in, to put anywhere in a history. */
const breaking: Message[] = [
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'nowhere', toolName: 'read_file', output: { type: 'text', value: 'x' } }] },
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'twice', toolName: 'read_file', input: {} }, { type: 'tool-call', toolCallId: 'twice', toolName: 'read_file', input: {} }] },
  { role: 'assistant', content: 'before any user message?' },
];

describe('ExtendingConversationCheck', () => {
  it('answers as requireValidConversation does for a history that grows chunk by chunk, broken or not', () => {
    fc.assert(
      fc.property(
        conversationArbitrary({ maxExchanges: 20 }),
        fc.array(fc.record({ size: fc.integer({ min: 0, max: 9 }), breakWith: fc.option(fc.nat({ max: breaking.length - 1 }), { nil: undefined }), afresh: fc.boolean() }), { minLength: 1, maxLength: 20 }),
        ({ messages }, steps) => {
          const check = new ExtendingConversationCheck();
          let grown: Message[] = [];
          let taken = 0;
          for (const { size, breakWith, afresh } of steps) {
            const next = messages.slice(taken, taken + size);
            taken += size;
            grown = [...grown, ...next, ...(breakWith === undefined ? [] : [breaking[breakWith] as Message])];
            // Built afresh, as equal copies: the check still sees the same history.
            const given = afresh ? (JSON.parse(JSON.stringify(grown)) as Message[]) : grown;
            expect(outcome(() => check.check(given))).toEqual(outcome(() => requireValidConversation(given)));
            // A broken message stays in; later checks keep failing, as they must.
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('checks whole again a history that does not extend the one before', () => {
    fc.assert(
      fc.property(conversationArbitrary({ maxExchanges: 15 }), fc.nat(), ({ messages }, cut) => {
        const check = new ExtendingConversationCheck();
        check.check(messages);
        const other = [...messages.slice(0, cut % (messages.length + 1)), ...breaking.slice(0, 1)];
        expect(outcome(() => check.check(other))).toEqual(outcome(() => requireValidConversation(other)));
        expect(outcome(() => check.check(messages))).toEqual(outcome(() => requireValidConversation(messages)));
      }),
      { numRuns: 300 },
    );
  });
});
