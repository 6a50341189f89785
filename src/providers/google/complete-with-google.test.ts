import { GoogleGenAI } from '@google/genai';
import { readFileSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { type LoopbackAnswer, startLoopbackServer } from '../../testing/loopback-server.js';
import { completeWithGoogle } from './complete-with-google.js';

const recorded = (name: string) => JSON.parse(readFileSync(new URL(`../__fixtures__/summaries/${name}.json`, import.meta.url), 'utf8')) as LoopbackAnswer;
let answer = recorded('google-summary');
const server = await startLoopbackServer(() => answer);
afterAll(() => server.close());
const complete = completeWithGoogle(new GoogleGenAI({ apiKey: 'test', httpOptions: { baseUrl: server.url, retryOptions: { attempts: 1 } } }), 'gemini-2.5-flash');

it('asks generateContent with the system instruction and the output cap, and answers the text without thoughts', async () => {
  answer = recorded('google-summary');
  const completion = await complete('Summarize.', 'The conversation.', { maxTokens: 500 });
  expect(server.received.at(-1)?.path).toMatch(/\/models\/gemini-2\.5-flash:generateContent$/);
  expect(server.received.at(-1)?.body).toMatchObject({
    contents: [{ role: 'user', parts: [{ text: 'The conversation.' }] }],
    systemInstruction: { parts: [{ text: 'Summarize.' }] },
    generationConfig: { maxOutputTokens: 500 },
  });
  expect(completion).toEqual({
    text: 'The user asked the agent to fix the failing payments tests. Amounts are integer cents; src/0.ts to src/6.ts were read and look right.',
    truncated: false,
    filtered: false,
    inputTokens: 1893,
    outputTokens: 161,
  });
});

it('says an answer cut off at the output cap is truncated', async () => {
  answer = recorded('google-summary-max-tokens');
  expect(await complete('Summarize.', 'The conversation.', { maxTokens: 64 })).toMatchObject({ truncated: true, outputTokens: 64 });
});
