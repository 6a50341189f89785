import { describe, expect, it } from 'vitest';
import { checkPairing } from './check-pairing.js';
import { calls, results, user } from '../testing/message-builders.js';

describe('checkPairing', () => {
  it('finds nothing wrong with paired parallel calls', () => {
    expect(checkPairing([user('a'), calls('1', '2'), results('2', '1'), user('b')])).toEqual([]);
  });

  it('reports an orphaned result with its message index, part index and id', () => {
    expect(checkPairing([user('a'), results('9')])).toEqual([
      expect.objectContaining({
        code: 'ORPHANED_TOOL_RESULT',
        messageIndex: 1,
        partIndex: 0,
        toolCallId: '9',
      }),
    ]);
  });

  it('reports a result whose call is in an earlier exchange as orphaned, and the call as missing', () => {
    const problems = checkPairing([user('a'), calls('1'), user('b'), results('1')]);
    expect(problems.map((problem) => [problem.code, problem.messageIndex])).toEqual([
      ['MISSING_TOOL_RESULT', 1],
      ['ORPHANED_TOOL_RESULT', 3],
    ]);
  });

  it('reports a call without a result', () => {
    expect(checkPairing([user('a'), calls('1', '2'), results('1')])).toEqual([
      expect.objectContaining({
        code: 'MISSING_TOOL_RESULT',
        messageIndex: 1,
        partIndex: 1,
        toolCallId: '2',
      }),
    ]);
  });

  it('takes an id used again once its call was answered as a new call, in a later exchange or the same one', () => {
    expect(checkPairing([user('a'), calls('1'), results('1'), user('b'), calls('1'), results('1')])).toEqual([]);
    expect(checkPairing([user('a'), calls('1'), results('1'), calls('1'), results('1'), calls('1', '2'), results('2', '1')])).toEqual([]);
    // An unanswered call ends with its exchange: the id is free in the next one.
    expect(checkPairing([user('a'), calls('1'), user('b'), calls('1'), results('1')]).map((problem) => [problem.code, problem.messageIndex])).toEqual([
      ['MISSING_TOOL_RESULT', 1],
    ]);
  });

  it('pairs a result with the nearest open call of its id', () => {
    const problems = checkPairing([user('a'), calls('1'), results('1'), calls('1'), user('b')]);
    expect(problems.map((problem) => [problem.code, problem.messageIndex, problem.partIndex])).toEqual([['MISSING_TOOL_RESULT', 3, 0]]);
  });

  it('reports a call whose id is still open, and a second result for one call', () => {
    const problems = checkPairing([user('a'), calls('1'), calls('1'), results('1', '1'), user('b'), calls('2'), results('2', '2')]);
    expect(problems.map((problem) => problem.code)).toEqual(['DUPLICATE_TOOL_CALL_ID', 'DUPLICATE_TOOL_RESULT']);
    expect(problems[0]?.description).toBe('messages[2].content[0]: tool call id "1" is used by an earlier tool call that has no result yet');
  });
});
