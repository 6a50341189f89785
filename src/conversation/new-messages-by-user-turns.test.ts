import { describe, expect, it } from 'vitest';
import type { ModelMessage } from '../message/message.js';
import { newMessagesAfterSharedTurn, newMessagesByUserTurns } from './new-messages-by-user-turns.js';

const user = (text: string): ModelMessage => ({ role: 'user', content: text });
const assistant = (text: string): ModelMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });
const call = (id: string): ModelMessage => ({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'lookup', input: {} }] });
const result = (id: string): ModelMessage => ({ role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: 'lookup', output: { type: 'text', value: id } }] });
const system: ModelMessage = { role: 'system', content: 'Be brief.' };

describe('newMessagesByUserTurns', () => {
  const stored = [system, user('one'), call('a'), result('a'), assistant('done one'), user('two'), assistant('done two')];

  it('takes what follows the stored turns when the history comes back merged', () => {
    const merged: ModelMessage[] = [system, user('one'), { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'lookup', input: {} }, { type: 'text', text: 'done one' }] }, result('a'), user('two'), assistant('done two'), user('three')];
    expect(newMessagesByUserTurns(stored, merged)).toEqual([user('three')]);
  });

  it('takes what follows the stored turns when only the latest ones are recalled', () => {
    expect(newMessagesByUserTurns(stored, [system, user('two'), assistant('done two'), user('three')])).toEqual([user('three')]);
  });

  it('tells a repeated question from the stored one by its place', () => {
    const again = [system, user('one'), assistant('done one'), user('one')];
    expect(newMessagesByUserTurns([system, user('one'), assistant('done one')], again)).toEqual([user('one')]);
  });

  it('takes the whole request, but its system prompt, when no turn aligns; nothing when every turn is stored', () => {
    expect(newMessagesByUserTurns(stored, [system, user('elsewhere')])).toEqual([user('elsewhere')]);
    expect(newMessagesByUserTurns([], [system, user('first')])).toEqual([system, user('first')]);
    expect(newMessagesByUserTurns(stored, [system, user('one'), user('two')])).toEqual([]);
  });
});

describe('newMessagesAfterSharedTurn', () => {
  const known = [system, user('one'), assistant('done one'), user('two'), call('a'), result('a'), assistant('done two')];
  const mergedTwo: ModelMessage = { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'lookup', input: {} }, { type: 'text', text: 'done two' }] };

  it('takes the request from its next question when it differs only after the latest question held, as the stored history would', () => {
    const sent = [system, user('one'), assistant('done one'), user('two'), mergedTwo, result('a'), user('three'), assistant('x')];
    expect(newMessagesAfterSharedTurn(known, sent, 4)).toEqual([user('three'), assistant('x')]);
    expect(newMessagesAfterSharedTurn(known, sent, 4)).toEqual(newMessagesByUserTurns(known, sent));
    expect(newMessagesAfterSharedTurn(known, [system, user('one'), assistant('done one'), user('two'), mergedTwo, result('a')], 4)).toEqual([]);
  });

  it('gives nothing when the difference lies before the latest question held, or no question is shared', () => {
    const edited = [system, user('one'), assistant('another one'), user('two'), assistant('done two'), user('three')];
    expect(newMessagesAfterSharedTurn(known, edited, 2)).toBeUndefined();
    expect(newMessagesAfterSharedTurn(known, [system, user('zero')], 1)).toBeUndefined();
  });
});
