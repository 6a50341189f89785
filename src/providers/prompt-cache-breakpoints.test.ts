import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { summaryMessage } from '../condense/stored-summary.js';
import type { ModelMessage } from '../message/message.js';
import { countBreakpoints, MAX_BREAKPOINTS } from './anthropic/anthropic-breakpoints.js';
import { buildRequest, convertFrom } from './wire-format.js';

const tools = [{ name: 'read_file', description: 'Reads a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }];
const history: ModelMessage[] = [
  { role: 'user', content: 'Fix the failing test.' },
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: 'a.ts' } }] },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read_file', output: { type: 'text', value: 'export const a = 1;' } }] },
  { role: 'assistant', content: 'Fixed.' },
  { role: 'user', content: 'Now the docs.' },
];
const anthropic = (input: Partial<Parameters<typeof buildRequest>[1]>) =>
  buildRequest('anthropic', { model: 'claude-sonnet-4-5', system: 'You are careful.', tools, messages: history, ...input }) as MessageCreateParamsNonStreaming;
const marked = (value: unknown) => JSON.stringify(value).includes('cache_control');

describe('Anthropic breakpoints', () => {
  it('without cache hints the body carries no marker', () => {
    expect(countBreakpoints(anthropic({}))).toBe(0);
  });

  it('marks the request end (top level), the last stable message, and the end of the system prompt', () => {
    const body = anthropic({ cache: { stablePrefixMessages: 3 } });
    expect(body.cache_control).toEqual({ type: 'ephemeral' });
    expect(body.system).toEqual([{ type: 'text', text: 'You are careful.', cache_control: { type: 'ephemeral' } }]);
    // Message 3 (the tool result) is the user turn at index 2 of the body.
    expect(body.messages[2]?.content).toEqual([expect.objectContaining({ type: 'tool_result', cache_control: { type: 'ephemeral' } })]);
    expect(marked(body.messages.slice(3))).toBe(false);
    expect(countBreakpoints(body)).toBe(3);
  });

  it('without a stable count, marks the message before the newest user message', () => {
    const body = anthropic({ cache: {} });
    expect(body.messages[3]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Fixed.', cache_control: { type: 'ephemeral' } }] });
    expect(marked(body.messages[2])).toBe(false);
  });

  it('marks the pinned summary apart from the system prompt; four at most', () => {
    const body = anthropic({ messages: [summaryMessage('Earlier: the build was fixed.'), ...history], cache: { stablePrefixMessages: 4 } });
    expect(body.system).toEqual([
      { type: 'text', text: 'You are careful.', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'Earlier: the build was fixed.', cache_control: { type: 'ephemeral' } },
    ]);
    expect(countBreakpoints(body)).toBe(MAX_BREAKPOINTS);
  });

  it('marks the last tool when there is no system prompt', () => {
    const body = anthropic({ system: undefined, cache: { stablePrefixMessages: 1 } });
    expect(body.tools?.[0]).toMatchObject({ name: 'read_file', cache_control: { type: 'ephemeral' } });
    expect(body.system).toBeUndefined();
  });

  it('keeps the caller\'s markers, counts them, and never passes four', () => {
    const turns = (count: number, marker: object): ModelMessage[] =>
      ['One.', 'Two.', 'Three.', 'Four.', 'Five.'].map((text, index) => ({
        role: index % 2 === 0 ? 'user' : 'assistant',
        content: text,
        ...(index < count ? { providerOptions: { anthropic: { cacheControl: marker } } } : {}),
      }));
    const body = anthropic({ messages: turns(3, { type: 'ephemeral', ttl: '1h' }), cache: { stablePrefixMessages: 4 } });
    expect(countBreakpoints(body)).toBe(MAX_BREAKPOINTS);
    expect(JSON.stringify(body).match(/"ttl":"1h"/g)).toHaveLength(3);
    expect(body.cache_control).toEqual({ type: 'ephemeral' });

    const full = anthropic({ messages: turns(4, { type: 'ephemeral' }), cache: { stablePrefixMessages: 4 } });
    expect(countBreakpoints(full)).toBe(MAX_BREAKPOINTS);
    expect(full.cache_control).toBeUndefined();
    expect(marked(full.system)).toBe(false);
  });

  it('a caller\'s top-level marker counts and is kept', () => {
    const body = anthropic({ options: { cache_control: { type: 'ephemeral', ttl: '1h' } }, cache: { stablePrefixMessages: 3 } });
    expect(body.cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
    expect(countBreakpoints(body)).toBe(3);
  });

  it('a stable prefix reaching the last message takes no second marker at the end', () => {
    const body = anthropic({ cache: { stablePrefixMessages: history.length } });
    expect(marked(body.messages)).toBe(false);
    // The top-level marker leaves the last message as it was built.
    expect(body.messages.at(-1)).toEqual({ role: 'user', content: 'Now the docs.' });
    expect(countBreakpoints(body)).toBe(2);
  });

  it('thinking blocks and empty text are never marked: the nearest block before takes it', () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: 'Plan it.' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Thinking first.' },
          { type: 'reasoning', text: 'hmm', providerOptions: { anthropic: { signature: 'sig' } } },
        ],
      },
      { role: 'user', content: 'Go.' },
    ];
    const body = anthropic({ messages, cache: { stablePrefixMessages: 2 } });
    expect(body.messages[1]?.content).toEqual([
      { type: 'text', text: 'Thinking first.', cache_control: { type: 'ephemeral' } },
      { type: 'thinking', thinking: 'hmm', signature: 'sig' },
    ]);
  });

  it('an imported body keeps the caller\'s markers through a round trip, and ours stay out of the neutral messages', () => {
    const imported = {
      model: 'claude-sonnet-4-5',
      max_tokens: 300,
      system: [{ type: 'text', text: 'You are careful.', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Fix it.', cache_control: { type: 'ephemeral' } }] },
        { role: 'assistant', content: 'Done.' },
        { role: 'user', content: 'Thanks.' },
      ],
    };
    const converted = convertFrom('anthropic', imported);
    const input = { model: 'claude-sonnet-4-5', system: converted.system, tools: converted.tools, messages: converted.messages as ModelMessage[], options: converted.options };
    expect(buildRequest('anthropic', input)).toEqual(imported);
    const sent = buildRequest('anthropic', { ...input, cache: { stablePrefixMessages: 2 } }) as MessageCreateParamsNonStreaming;
    expect(countBreakpoints(sent)).toBe(4);
    // Building marks a copy: the neutral messages hold only the caller's markers.
    expect(JSON.stringify(converted.messages).match(/cacheControl/g)).toHaveLength(1);
    expect(buildRequest('anthropic', input)).toEqual(imported);
  });
});

describe('OpenAI prompt_cache_key', () => {
  const chat = (input: Partial<Parameters<typeof buildRequest>[1]>) =>
    buildRequest('openai-chat', { model: 'gpt-5', messages: history, ...input }) as ChatCompletionCreateParamsNonStreaming;
  const responses = (input: Partial<Parameters<typeof buildRequest>[1]>) =>
    buildRequest('openai-responses', { model: 'gpt-5', messages: history, ...input }) as ResponseCreateParamsNonStreaming;

  it('carries the key from the hints, on Chat and Responses', () => {
    expect(chat({ cache: { key: 'agent-1' } }).prompt_cache_key).toBe('agent-1');
    expect(responses({ cache: { key: 'agent-1' } }).prompt_cache_key).toBe('agent-1');
    expect(chat({}).prompt_cache_key).toBeUndefined();
    expect(responses({}).prompt_cache_key).toBeUndefined();
  });

  it('keeps the caller\'s own key', () => {
    expect(chat({ options: { prompt_cache_key: 'mine' }, cache: { key: 'agent-1' } }).prompt_cache_key).toBe('mine');
    expect(responses({ options: { prompt_cache_key: 'mine' }, cache: { key: 'agent-1' } }).prompt_cache_key).toBe('mine');
  });
});
