import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { completeFor } from './provider-table.js';

// A raw loopback server: the shared one answers JSON only, and an HTML page is the point here.
let answer = { type: 'application/json', body: '{}' };
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': answer.type });
    response.end(answer.body);
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
afterAll(() => new Promise<void>((resolve) => {
  server.close(() => {
    resolve();
  });
}));

const completes = {
  openai: completeFor('openai', new OpenAI({ apiKey: 'test', baseURL: `${url}/v1`, maxRetries: 0 }), 'gpt-4o-mini'),
  anthropic: completeFor('anthropic', new Anthropic({ apiKey: 'test', baseURL: url, maxRetries: 0 }), 'claude-haiku-4-5'),
  google: completeFor('google', new GoogleGenAI({ apiKey: 'test', httpOptions: { baseUrl: url, retryOptions: { attempts: 1 } } }), 'gemini-2.5-flash'),
};
const ask = (provider: keyof typeof completes) => completes[provider]('Summarize.', 'The conversation.', { maxTokens: 500 });
const html = { type: 'text/html', body: '<html><body><h1>502 Bad Gateway</h1></body></html>' };
const json = (body: unknown) => ({ type: 'application/json', body: JSON.stringify(body) });

describe('a completion whose answer lacks what was asked for is UNEXPECTED_RESPONSE, naming what is missing', () => {
  const missing = {
    openai: /^the answer has no choices\[0\]\.message\.content string \(it is /,
    anthropic: /^the answer has no content array of blocks/,
    google: /^the answer (has no candidates\[0\]\.content\.parts|is not a JSON object with candidates)/,
  };
  const bodies: [string, { type: string; body: string }][] = [
    ['an HTML page', html],
    ['a bare JSON number', json(42)],
    ['a bare JSON string', json('ok')],
  ];
  describe.each(['openai', 'anthropic', 'google'] as const)('%s', (provider) => {
    it.each(bodies)('%s', async (_, body) => {
      answer = body;
      await expect(ask(provider)).rejects.toMatchObject({ code: 'UNEXPECTED_RESPONSE', message: expect.stringMatching(missing[provider]) as unknown });
    });
  });

  it('openai: content given as an array, not a string', async () => {
    answer = json({ choices: [{ index: 0, message: { role: 'assistant', content: [{ type: 'text', text: 'A summary.' }] }, finish_reason: 'stop' }] });
    await expect(ask('openai')).rejects.toMatchObject({ code: 'UNEXPECTED_RESPONSE', message: expect.stringMatching(/^the answer has no choices\[0\]\.message\.content string \(it is an object without it\)/) as unknown });
  });

  it('anthropic: a text block whose text is not a string, and content that is a string', async () => {
    answer = json({ type: 'message', content: [{ type: 'text', text: ['A summary.'] }], stop_reason: 'end_turn' });
    await expect(ask('anthropic')).rejects.toMatchObject({ code: 'UNEXPECTED_RESPONSE' });
    answer = json({ type: 'message', content: 'A summary.', stop_reason: 'end_turn' });
    await expect(ask('anthropic')).rejects.toMatchObject({ code: 'UNEXPECTED_RESPONSE' });
  });

  it('google: parts that are not an array', async () => {
    answer = json({ candidates: [{ content: { parts: 'A summary.' }, finishReason: 'STOP' }] });
    await expect(ask('google')).rejects.toMatchObject({ code: 'UNEXPECTED_RESPONSE', message: expect.stringMatching(missing.google) as unknown });
  });
});

describe('a completion the provider\'s filter stopped is marked filtered, not a clean answer', () => {
  it.each([
    ['openai finish_reason content_filter', 'openai', { choices: [{ index: 0, message: { role: 'assistant', content: 'The user asked' }, finish_reason: 'content_filter' }] }],
    ['openai refusal', 'openai', { choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: 'I can\'t help with that.' }, finish_reason: 'stop' }] }],
    ['anthropic stop_reason refusal', 'anthropic', { type: 'message', content: [{ type: 'text', text: 'The user asked' }], stop_reason: 'refusal', usage: { input_tokens: 10, output_tokens: 3 } }],
    ['google finishReason SAFETY', 'google', { candidates: [{ content: { parts: [{ text: 'The user asked' }] }, finishReason: 'SAFETY' }] }],
    ['google finishReason PROHIBITED_CONTENT', 'google', { candidates: [{ content: { parts: [{ text: 'The user asked' }] }, finishReason: 'PROHIBITED_CONTENT' }] }],
    ['google a blocked prompt', 'google', { promptFeedback: { blockReason: 'SAFETY' } }],
  ] as const)('%s', async (_, provider, body) => {
    answer = json(body);
    expect(await ask(provider)).toMatchObject({ truncated: false, filtered: true });
  });

  it.each([
    ['openai', { choices: [{ index: 0, message: { role: 'assistant', content: 'A summary.' }, finish_reason: 'stop' }] }],
    ['anthropic', { type: 'message', content: [{ type: 'text', text: 'A summary.' }], stop_reason: 'end_turn' }],
    ['google', { candidates: [{ content: { parts: [{ text: 'A summary.' }] }, finishReason: 'STOP' }] }],
  ] as const)('%s: a clean answer is not', async (provider, body) => {
    answer = json(body);
    expect(await ask(provider)).toMatchObject({ text: 'A summary.', truncated: false, filtered: false });
  });
});
