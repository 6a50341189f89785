import Anthropic from '@anthropic-ai/sdk';
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { inputTokensFromUsage } from '../../tokens/provider-usage.js';
import { type LoopbackAnswer, startLoopbackServer } from '../../testing/loopback-server.js';
import { anthropicClient, openAiChatClient } from './chat-client.js';

const recorded = (name: string): LoopbackAnswer => ({ status: 200, sse: readFileSync(new URL(`./__fixtures__/${name}.sse`, import.meta.url), 'utf8') });
let answer: LoopbackAnswer = recorded('openai-stream-text');
const server = await startLoopbackServer(() => answer);
afterAll(() => server.close());

const clients = {
  openai: openAiChatClient(new OpenAI({ apiKey: 'test', baseURL: `${server.url}/v1`, maxRetries: 0 })),
  anthropic: anthropicClient(new Anthropic({ apiKey: 'test', baseURL: server.url, maxRetries: 0 })),
};
const requests = {
  openai: { model: 'gpt-4o', messages: [{ role: 'user', content: 'Fix the tests.' }] },
  anthropic: { model: 'claude-sonnet-4-5', max_tokens: 1024, messages: [{ role: 'user', content: 'Fix the tests.' }] },
};

describe.each(['openai', 'anthropic'] as const)('the %s streaming chat client, on recorded event streams', (provider) => {
  it('streams the text as it comes and returns the assistant message with the usage reported', async () => {
    answer = recorded(`${provider}-stream-text`);
    const pieces: string[] = [];
    const reply = await clients[provider].stream(requests[provider], (text) => pieces.push(text));
    expect(pieces.length).toBeGreaterThan(2);
    const text = typeof reply.message.content === 'string' ? reply.message.content : reply.message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    expect(reply.message.role).toBe('assistant');
    expect(text).toBe(pieces.join(''));
    expect(text).toMatch(/^(The tests now pass|Done: the README)/);
    expect(inputTokensFromUsage(reply.usage)).toBe(provider === 'openai' ? 812 : 711);
    expect(server.received.at(-1)?.body).toMatchObject({ stream: true });
  });

  it('assembles a streamed tool call, its arguments given in pieces', async () => {
    answer = recorded(provider === 'openai' ? 'openai-stream-tool-call' : 'anthropic-stream-tool-use');
    const reply = await clients[provider].stream(requests[provider], () => undefined);
    expect(reply.stopReason).toBe(provider === 'openai' ? 'tool_calls' : 'tool_use');
    const content = reply.message.content as { type: string }[];
    expect(content.find((part) => part.type === 'tool-call')).toMatchObject({ type: 'tool-call', toolName: 'read_file', input: { path: 'notes.txt' } });
  });
});
