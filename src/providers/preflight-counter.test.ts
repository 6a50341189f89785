import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelMessage } from '../message/message.js';
import { startLoopbackServer } from '../testing/loopback-server.js';
import { loadTokenCounter } from '../tokens/load-token-counter.js';
import { createPreflightCounter } from './preflight-counter.js';

let rateLimited = false;
const server = await startLoopbackServer(({ path }) => {
  if (rateLimited) return { status: 429, body: { error: { type: 'rate_limit_error', message: 'slow down' } } };
  if (path === '/v1/responses/input_tokens') return { status: 200, body: { object: 'response.input_tokens', input_tokens: 4242 } };
  if (path === '/v1/messages/count_tokens') return { status: 200, body: { input_tokens: 1717 } };
  if (path.startsWith('/v1beta/models/gemini-2.5-pro:countTokens')) return { status: 200, body: { totalTokens: 999 } };
  return { status: 404, body: { error: { message: `no route ${path}` } } };
});
const clients = {
  openai: new OpenAI({ apiKey: 'test', baseURL: `${server.url}/v1`, maxRetries: 0 }),
  anthropic: new Anthropic({ apiKey: 'test', baseURL: server.url, maxRetries: 0 }),
  google: new GoogleGenAI({ apiKey: 'test', httpOptions: { baseUrl: server.url } }),
};
const counter = await loadTokenCounter();
const request = {
  system: 'You are terse.',
  tools: [{ name: 'read_file', description: 'Read a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }],
  messages: [
    { role: 'user', content: 'Read a.ts' },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'toolu_1', toolName: 'read_file', input: { path: 'a.ts' } }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'toolu_1', toolName: 'read_file', output: { type: 'text', value: 'export {}' } }] },
  ] satisfies ModelMessage[],
};

beforeAll(() => {
  rateLimited = false;
});
afterAll(() => server.close());

describe('createPreflightCounter against the providers\' count-tokens APIs on loopback', () => {
  it('never asks by default', async () => {
    const before = server.received.length;
    const preflight = createPreflightCounter({ counter, clients });
    const count = await preflight.count({ provider: 'anthropic', model: 'claude-sonnet-4-5', request });
    expect(count.exact).toBe(false);
    expect(server.received.length).toBe(before);
  });

  it('with `always`, asks each provider through its SDK, in its own wire format, and caches the answer', async () => {
    const preflight = createPreflightCounter({ counter, clients, policy: 'always' });
    expect(await preflight.count({ provider: 'anthropic', model: 'claude-sonnet-4-5', request })).toEqual({ tokens: 1717, exact: true, method: 'anthropic count-tokens API' });
    // Gemini counts the contents; the system instruction and tools keep our estimate.
    const preamble = counter.countPreamble({ provider: 'google', model: 'gemini-2.5-pro', system: request.system, tools: request.tools });
    expect(await preflight.count({ provider: 'google', model: 'gemini-2.5-pro', request })).toEqual({
      tokens: 999 + preamble.tokens,
      exact: false,
      method: 'google count-tokens API+gemini estimate',
    });
    expect(await preflight.count({ provider: 'google', model: 'gemini-2.5-pro', request: { messages: request.messages } })).toMatchObject({ tokens: 999, exact: true });
    const anthropicBody = server.received.find((entry) => entry.path === '/v1/messages/count_tokens')?.body;
    expect(anthropicBody).toMatchObject({
      model: 'claude-sonnet-4-5',
      system: 'You are terse.',
      messages: [
        { role: 'user', content: 'Read a.ts' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file' }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1' }] },
      ],
    });
    const before = server.received.length;
    await preflight.count({ provider: 'anthropic', model: 'claude-sonnet-4-5', request });
    expect(server.received.length).toBe(before);
  });

  it('does not ask about a count that is already exact (OpenAI text), but asks when it is not', async () => {
    const preflight = createPreflightCounter({ counter, clients, policy: 'always' });
    const plain = { messages: [{ role: 'user', content: 'hello' }] satisfies ModelMessage[] };
    expect((await preflight.count({ provider: 'openai', model: 'gpt-4o', request: plain })).method).toBe('o200k_base');
    expect(await preflight.count({ provider: 'openai', model: 'gpt-4o', request })).toMatchObject({ tokens: 4242, exact: true });
    expect(server.received.at(-1)).toMatchObject({ path: '/v1/responses/input_tokens', body: { model: 'gpt-4o', instructions: 'You are terse.' } });
  });

  it('with `near-limit`, asks only when the estimate is within the margin of the budget', async () => {
    const preflight = createPreflightCounter({ counter, clients, policy: 'near-limit', marginFraction: 0.1 });
    const estimate = counter.count({ provider: 'anthropic', model: 'claude-opus-4-1', request }).tokens;
    const before = server.received.length;
    await preflight.count({ provider: 'anthropic', model: 'claude-opus-4-1', request, budgetTokens: estimate * 10 });
    expect(server.received.length).toBe(before);
    expect(await preflight.count({ provider: 'anthropic', model: 'claude-opus-4-1', request, budgetTokens: estimate + 1 })).toMatchObject({ exact: true });
    expect(server.received.length).toBe(before + 1);
  });

  it('a rate limit falls back to the estimate, with a warning', async () => {
    rateLimited = true;
    const warnings: string[] = [];
    const preflight = createPreflightCounter({ counter, clients, policy: 'always', onWarning: (warning) => warnings.push(warning) });
    const count = await preflight.count({ provider: 'anthropic', model: 'claude-haiku-4-5', request });
    rateLimited = false;
    expect(count).toEqual(counter.count({ provider: 'anthropic', model: 'claude-haiku-4-5', request }));
    expect(warnings).toEqual(['The anthropic count-tokens API failed (rate limited); using the offline estimate.']);
  });
});
