import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { isSlidingContextError } from '../../errors/sliding-context-error.js';
import { convertFromLangChain } from './convert-from-langchain.js';
import { convertToLangChain } from './convert-to-langchain.js';

const conversation = () => [
  new SystemMessage({ content: 'Be terse.', id: 'm-system' }),
  new HumanMessage({ content: [{ type: 'text', text: 'What is in this picture, and the weather?' }, { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }], id: 'm-user' }),
  new AIMessage({
    content: 'Checking.',
    id: 'm-ai',
    tool_calls: [
      { id: 'call_a', name: 'get_weather', args: { city: 'Oslo' }, type: 'tool_call' },
      { id: 'call_b', name: 'get_weather', args: { city: 'Lima' }, type: 'tool_call' },
    ],
  }),
  new ToolMessage({ content: 'Sunny.', tool_call_id: 'call_a', name: 'get_weather', id: 'm-tool-a' }),
  new ToolMessage({ content: 'Lima is unreachable.', tool_call_id: 'call_b', status: 'error', id: 'm-tool-b' }),
  new AIMessage({ content: 'A cat; sunny in Oslo.', id: 'm-answer' }),
];

describe('LangChain message conversion', () => {
  it('converts system, human (with an image), AI with parallel tool calls and tool messages, keeping every id as sent', () => {
    expect(convertFromLangChain(conversation())).toEqual([
      { role: 'system', content: 'Be terse.', id: 'm-system' },
      { role: 'user', content: [{ type: 'text', text: 'What is in this picture, and the weather?' }, { type: 'image', image: 'https://example.com/cat.png' }], id: 'm-user' },
      {
        role: 'assistant',
        id: 'm-ai',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool-call', toolCallId: 'call_a', toolName: 'get_weather', input: { city: 'Oslo' } },
          { type: 'tool-call', toolCallId: 'call_b', toolName: 'get_weather', input: { city: 'Lima' } },
        ],
      },
      { role: 'tool', id: 'm-tool-a', content: [{ type: 'tool-result', toolCallId: 'call_a', toolName: 'get_weather', output: { type: 'text', value: 'Sunny.' } }] },
      // Named after the call it answers, and marked as the error it was.
      { role: 'tool', id: 'm-tool-b', content: [{ type: 'tool-result', toolCallId: 'call_b', toolName: 'get_weather', output: { type: 'error-text', value: 'Lima is unreachable.' } }] },
      { role: 'assistant', content: 'A cat; sunny in Oslo.', id: 'm-answer' },
    ]);
  });

  it('converts back to LangChain messages that convert to the same neutral messages', () => {
    const neutral = convertFromLangChain(conversation());
    const back = convertToLangChain(neutral);
    expect(back.map((message) => [message.type, message.id])).toEqual([
      ['system', 'm-system'], ['human', 'm-user'], ['ai', 'm-ai'], ['tool', 'm-tool-a'], ['tool', 'm-tool-b'], ['ai', 'm-answer'],
    ]);
    expect((back[2] as AIMessage).tool_calls?.map((call) => [call.id, call.args])).toEqual([['call_a', { city: 'Oslo' }], ['call_b', { city: 'Lima' }]]);
    expect((back[4] as ToolMessage).status).toBe('error');
    expect(convertFromLangChain(back)).toEqual(neutral);
  });

  it('takes an Anthropic reply\'s tool calls once, from its tool_calls, not again from its tool_use blocks', () => {
    const reply = new AIMessage({
      content: [{ type: 'text', text: 'Reading.' }, { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.txt' } }],
      tool_calls: [{ id: 'toolu_1', name: 'read_file', args: { path: 'a.txt' }, type: 'tool_call' }],
      response_metadata: { model_provider: 'anthropic' },
      id: 'msg_1',
    });
    expect(convertFromLangChain([reply])).toEqual([{
      role: 'assistant',
      id: 'msg_1',
      content: [{ type: 'text', text: 'Reading.' }, { type: 'tool-call', toolCallId: 'toolu_1', toolName: 'read_file', input: { path: 'a.txt' } }],
    }]);
  });

  it('refuses a tool call without an id, naming the message and the call', () => {
    const reply = new AIMessage({ content: '', tool_calls: [{ name: 'read_file', args: {}, type: 'tool_call' }] });
    let caught: unknown;
    try {
      convertFromLangChain([new HumanMessage('hi'), reply]);
    } catch (error) {
      caught = error;
    }
    expect(isSlidingContextError(caught, 'INVALID_MESSAGE')).toBe(true);
    expect((caught as Error).message).toBe('messages[1].tool_calls[0] (read_file) has no id; a tool call needs the id its ToolMessage answers.');
  });
});
