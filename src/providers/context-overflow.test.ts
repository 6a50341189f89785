import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { startLoopbackServer } from '../testing/loopback-server.js';
import { contextOverflowOf } from './context-overflow.js';

const recorded = (name: string) => JSON.parse(readFileSync(new URL(`./__fixtures__/errors/${name}.json`, import.meta.url), 'utf8')) as { status: number; body: unknown };

let answer = recorded('openai-server-error');
const server = await startLoopbackServer(() => answer);
afterAll(() => server.close());

const openai = new OpenAI({ apiKey: 'test', baseURL: `${server.url}/v1`, maxRetries: 0 });
const anthropic = new Anthropic({ apiKey: 'test', baseURL: server.url, maxRetries: 0 });
const google = new GoogleGenAI({ apiKey: 'test', httpOptions: { baseUrl: server.url, retryOptions: { attempts: 1 } } });

const calls = {
  'openai-chat': () => openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
  'openai-responses': () => openai.responses.create({ model: 'gpt-4o', input: 'hi' }),
  'anthropic': () => anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
  'google': () => google.models.generateContent({ model: 'gemini-2.5-pro', contents: 'hi' }),
};

/** The error the official SDK throws when the server answers with the recorded payload. */
async function thrownBy(client: keyof typeof calls, fixture: string): Promise<unknown> {
  answer = recorded(fixture);
  try {
    await calls[client]();
  } catch (error) {
    return error;
  }
  throw new Error(`${client} did not fail on ${fixture}`);
}

describe('contextOverflowOf, on the errors the official SDKs throw for recorded answers', () => {
  it.each([
    ['openai-chat', 'openai-context-length-exceeded', 131_845, 128_000],
    ['openai-responses', 'openai-responses-context-window', undefined, undefined],
    ['anthropic', 'anthropic-prompt-too-long', 208_310, 200_000],
    ['google', 'google-input-token-count', 1_200_293, 1_048_576],
    ['openai-chat', 'llama-cpp-exceed-context', 9_342, 8_192],
  ] as const)('%s answering %s', async (client, fixture, tokens, limit) => {
    const overflow = contextOverflowOf(await thrownBy(client, fixture));
    expect(overflow).toMatchObject({ tokens, limit });
    expect(overflow?.message.length).toBeGreaterThan(0);
  });

  it.each([
    ['openai-chat', 'openai-server-error'],
    ['anthropic', 'anthropic-overloaded'],
  ] as const)('is undefined for other errors: %s answering %s', async (client, fixture) => {
    expect(contextOverflowOf(await thrownBy(client, fixture))).toBeUndefined();
  });

  it('reads a raw body as well, and ignores what is not an error', () => {
    expect(contextOverflowOf(recorded('anthropic-prompt-too-long'))).toMatchObject({ tokens: 208_310, limit: 200_000 });
    expect(contextOverflowOf(new Error('socket hang up'))).toBeUndefined();
    expect(contextOverflowOf(undefined)).toBeUndefined();
    expect(contextOverflowOf(42)).toBeUndefined();
  });
});
