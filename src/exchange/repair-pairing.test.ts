import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ModelMessage } from '../message/message.js';
import { conversationArbitrary, withoutEvents } from '../testing/conversation-arbitrary.js';
import { calls, result, results, user } from '../testing/message-builders.js';
import { checkPairing } from './check-pairing.js';
import { repairPairing } from './repair-pairing.js';

describe('repairPairing', () => {
  it('drops orphaned and duplicate results and answers unanswered calls, reporting each change', () => {
    const messages: ModelMessage[] = [user('a'), calls('c1', 'c2'), results('c1', 'c1'), user('b'), results('ghost'), { role: 'assistant', content: 'done' }];
    const repaired = repairPairing(messages);
    expect(repaired.repairs.map((repair) => [repair.action, repair.messageIndex, repair.toolCallId])).toEqual([
      ['dropped-duplicate-result', 2, 'c1'],
      ['dropped-orphaned-result', 4, 'ghost'],
      ['added-aborted-result', 1, 'c2'],
    ]);
    expect(repaired.repairs[1]?.description).toBe('messages[4].content[0]: dropped the orphaned tool result for "ghost"');
    expect(repaired.messages).toEqual([
      user('a'),
      calls('c1', 'c2'),
      { role: 'tool', content: [result('c1')] },
      expect.objectContaining({ role: 'tool', content: [expect.objectContaining({ toolCallId: 'c2', output: { type: 'error-text', value: 'aborted' } })] }),
      user('b'),
      { role: 'assistant', content: 'done' },
    ]);
    expect(checkPairing(repaired.messages)).toEqual([]);
  });

  it('keeps every result of an id used again once its call was answered, and drops only what has no call', () => {
    const messages: ModelMessage[] = [user('a'), calls('c1'), results('c1'), calls('c1'), results('c1'), user('b'), calls('c1'), results('c1', 'c1', 'ghost')];
    const repaired = repairPairing(messages);
    expect(repaired.repairs.map((repair) => [repair.action, repair.messageIndex, repair.partIndex, repair.toolCallId])).toEqual([
      ['dropped-duplicate-result', 7, 1, 'c1'],
      ['dropped-orphaned-result', 7, 2, 'ghost'],
    ]);
    expect(repaired.messages).toEqual([...messages.slice(0, 7), results('c1')]);
    expect(checkPairing(repaired.messages)).toEqual([]);
    expect(repairPairing(messages.slice(0, 5))).toEqual({ messages: messages.slice(0, 5), repairs: [] });
  });

  it('changes nothing, and says so, when the pairing is sound', () => {
    const messages = [user('a'), calls('c'), results('c')];
    expect(repairPairing(messages)).toEqual({ messages, repairs: [] });
  });

  it('always yields a conversation with sound pairing', () => {
    fc.assert(
      fc.property(conversationArbitrary({ maxExchanges: 6 }), fc.array(fc.nat(), { maxLength: 4 }), (conversation, cuts) => {
        // Cut random messages out to create orphans and dangling calls.
        const messages = withoutEvents(conversation.messages).filter((_message, index) => !cuts.includes(index));
        const repaired = repairPairing(messages);
        expect(checkPairing(repaired.messages).filter((problem) => problem.code !== 'DUPLICATE_TOOL_CALL_ID')).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
