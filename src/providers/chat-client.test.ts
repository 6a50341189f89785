import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { inputTokensFromUsage } from '../tokens/provider-usage.js';
import { type LoopbackAnswer, startLoopbackServer } from '../testing/loopback-server.js';
import { chatClientFor } from './provider-table.js';

const recorded = (name: string): LoopbackAnswer => ({ status: 200, sse: readFileSync(new URL(`./__fixtures__/streams/${name}.sse`, import.meta.url), 'utf8') });
let answer: LoopbackAnswer = recorded('openai-stream-text');
const server = await startLoopbackServer(() => answer);
afterAll(() => server.close());

const clients = {
  openai: chatClientFor('openai', new OpenAI({ apiKey: 'test', baseURL: `${server.url}/v1`, maxRetries: 0 })),
  anthropic: chatClientFor('anthropic', new Anthropic({ apiKey: 'test', baseURL: server.url, maxRetries: 0 })),
  google: chatClientFor('google', new GoogleGenAI({ apiKey: 'test', httpOptions: { baseUrl: server.url, retryOptions: { attempts: 1 } } })),
};
const requests = {
  openai: { model: 'gpt-4o', messages: [{ role: 'user', content: 'Fix the tests.' }] },
  anthropic: { model: 'claude-sonnet-4-5', max_tokens: 1024, messages: [{ role: 'user', content: 'Fix the tests.' }] },
  google: { model: 'gemini-2.5-flash', contents: [{ role: 'user', parts: [{ text: 'Fix the tests.' }] }], config: {} },
};
const toolStreams = { openai: 'openai-stream-tool-call', anthropic: 'anthropic-stream-tool-use', google: 'google-stream-function-call' };
const stopReasons = { openai: 'tool_calls', anthropic: 'tool_use', google: 'STOP' };
const inputTokens = { openai: 812, anthropic: 711, google: 512 };

describe.each(['openai', 'anthropic', 'google'] as const)('the %s streaming chat client, on recorded event streams', (provider) => {
  it('streams the text as it comes and returns the assistant message with the usage reported', async () => {
    answer = recorded(`${provider}-stream-text`);
    const pieces: string[] = [];
    const reply = await clients[provider].stream(requests[provider], (text) => pieces.push(text));
    expect(pieces.length).toBeGreaterThan(2);
    const text = typeof reply.message.content === 'string' ? reply.message.content : reply.message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    expect(reply.message.role).toBe('assistant');
    expect(text).toBe(pieces.join(''));
    expect(text).toMatch(/^(The tests now pass|Done: the README|The notes say)/);
    expect(inputTokensFromUsage(reply.usage)).toBe(inputTokens[provider]);
    if (provider === 'google') expect(server.received.at(-1)?.path).toMatch(/\/models\/gemini-2\.5-flash:streamGenerateContent\?alt=sse/);
    else expect(server.received.at(-1)?.body).toMatchObject({ stream: true });
  });

  it('assembles a streamed tool call, its arguments given in pieces', async () => {
    answer = recorded(toolStreams[provider]);
    const reply = await clients[provider].stream(requests[provider], () => undefined);
    expect(reply.stopReason).toBe(stopReasons[provider]);
    const content = reply.message.content as { type: string }[];
    expect(content.find((part) => part.type === 'tool-call')).toMatchObject({ type: 'tool-call', toolName: 'read_file', input: { path: 'notes.txt' } });
  });
});

describe('arguments that are not JSON', () => {
  it.each(['openai', 'anthropic'] as const)('%s: the tool call keeps them as its string input, instead of failing the reply', async (provider) => {
    const stream = recorded(toolStreams[provider]);
    // The closing brace of the arguments lost: `{"path": "notes.txt"`.
    answer = { status: 200, sse: 'sse' in stream ? stream.sse.replace('tes.txt\\"}', 'tes.txt\\"') : '' };
    const reply = await clients[provider].stream(requests[provider], () => undefined);
    const content = reply.message.content as { type: string }[];
    expect(content.find((part) => part.type === 'tool-call')).toMatchObject({ type: 'tool-call', toolName: 'read_file', input: '{"path": "notes.txt"' });
  });
});
