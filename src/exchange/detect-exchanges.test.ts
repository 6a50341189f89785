import { describe, expect, it } from 'vitest';
import type { Message } from '../message/message.js';
import { detectExchanges } from './detect-exchanges.js';

const call = (id: string): Message => ({
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: id, toolName: 'read_file', input: {} }],
});
const result = (id: string): Message => ({
  role: 'tool',
  content: [
    {
      type: 'tool-result',
      toolCallId: id,
      toolName: 'read_file',
      output: { type: 'text', value: 'x' },
    },
  ],
});

describe('detectExchanges', () => {
  it('starts an exchange at each user message and runs to the next one', () => {
    const messages: Message[] = [
      { role: 'user', content: 'Fix the lint errors' },
      call('1'),
      result('1'),
      call('2'),
      result('2'),
      { role: 'assistant', content: 'Fixed.' },
      { role: 'user', content: 'Thanks' },
      { role: 'assistant', content: 'You are welcome.' },
    ];
    expect(detectExchanges(messages)).toEqual([
      { index: 0, firstMessage: 0, lastMessage: 5 },
      { index: 1, firstMessage: 6, lastMessage: 7 },
    ]);
  });

  it('leaves leading system messages out as the pinned preamble', () => {
    const messages: Message[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'system', content: 'Use British spelling.' },
      { role: 'user', content: 'Hi' },
    ];
    expect(detectExchanges(messages)).toEqual([{ index: 0, firstMessage: 2, lastMessage: 2 }]);
  });

  it('keeps system and event messages inside the exchange they occur in', () => {
    const messages: Message[] = [
      { role: 'user', content: 'Add logging' },
      { role: 'event', kind: 'mark', label: 'logging' },
      { role: 'system', content: 'mark created' },
      { role: 'assistant', content: 'Logging added' },
    ];
    expect(detectExchanges(messages)).toEqual([{ index: 0, firstMessage: 0, lastMessage: 3 }]);
  });

  it('does not start an exchange at a user message that carries tool results', () => {
    const messages: Message[] = [
      { role: 'user', content: 'Read a.ts' },
      call('1'),
      {
        role: 'user',
        content: [
          {
            type: 'tool-result',
            toolCallId: '1',
            toolName: 'read_file',
            output: { type: 'text', value: 'x' },
          },
        ],
      },
      call('2'),
      {
        role: 'user',
        content: [
          {
            type: 'tool-result',
            toolCallId: '2',
            toolName: 'read_file',
            output: { type: 'text', value: 'y' },
          },
          { type: 'text', text: 'approved' },
        ],
      },
      { role: 'assistant', content: 'Done' },
    ];
    expect(detectExchanges(messages)).toEqual([{ index: 0, firstMessage: 0, lastMessage: 5 }]);
  });

  it('an interrupted exchange is still an exchange', () => {
    const messages: Message[] = [
      { role: 'user', content: 'Implement feature X' },
      call('1'),
      { role: 'user', content: 'Actually, do Y instead' },
      { role: 'assistant', content: 'Sure.' },
    ];
    expect(detectExchanges(messages)).toEqual([
      { index: 0, firstMessage: 0, lastMessage: 1 },
      { index: 1, firstMessage: 2, lastMessage: 3 },
    ]);
  });

  it('finds no exchange without a user message', () => {
    expect(detectExchanges([{ role: 'system', content: 'x' }])).toEqual([]);
    expect(detectExchanges([])).toEqual([]);
  });
});
