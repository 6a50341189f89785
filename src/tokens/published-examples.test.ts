/**
 * Our counts against numbers the providers (or measurements against their APIs) published.
 * Each example names its source.
 */
import { describe, expect, it } from 'vitest';
import type { ModelMessage, ToolDefinition } from '../message/message.js';
import { openAiImageRules } from './data/openai-counting-data.js';
import { loadTokenCounter } from './load-token-counter.js';
import { countAnthropicImage, countGeminiImage, countOpenAiImage } from './media/image-tokens.js';

const counter = await loadTokenCounter({ targets: [{ provider: 'openai', model: 'gpt-3.5-turbo' }] });

function promptTokens(model: string, system: string | undefined, messages: ModelMessage[], tools?: ToolDefinition[]) {
  return counter.count({ provider: 'openai', model, request: { system, tools, messages } });
}
const user = (content: string): ModelMessage => ({ role: 'user', content });
const tool = (name: string, inputSchema: Record<string, unknown>, description?: string): ToolDefinition =>
  description === undefined ? { name, inputSchema } : { name, description, inputSchema };

describe('OpenAI chat framing and tools match API-measured counts', () => {
  it('the OpenAI Cookbook tools example: 105 tokens on gpt-4, 101 on gpt-4o, both exact', () => {
    // @see https://github.com/openai/openai-cookbook/blob/main/examples/How_to_count_tokens_with_tiktoken.ipynb
    const weather = tool(
      'get_current_weather',
      {
        type: 'object',
        properties: {
          location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' },
          unit: { type: 'string', description: 'The unit of temperature to return', enum: ['celsius', 'fahrenheit'] },
        },
        required: ['location'],
      },
      'Get the current weather in a given location',
    );
    const system = 'You are a helpful assistant that can answer to questions about the weather.';
    const messages = [user('What\'s the weather like in San Francisco?')];
    expect(promptTokens('gpt-4', system, messages, [weather])).toEqual({ tokens: 105, exact: true, method: 'cl100k_base' });
    expect(promptTokens('gpt-4o', system, messages, [weather])).toEqual({ tokens: 101, exact: true, method: 'o200k_base' });
  });

  // API-measured on gpt-3.5-turbo, published with hmarr/openai-chat-tokens (tests/token-counts.test.ts).
  const noProperties = { type: 'object', properties: {} };
  const cases: [string, string | undefined, ModelMessage[], ToolDefinition[] | undefined, number][] = [
    ['one user word', undefined, [user('hello')], undefined, 8],
    ['two user words', undefined, [user('hello world')], undefined, 9],
    ['a system prompt alone', 'hello', [], undefined, 8],
    ['a system prompt with punctuation', 'hello:', [], undefined, 9],
    ['system, user and assistant', '# Important: you\'re the best robot', [user('hello robot'), { role: 'assistant', content: 'hello world' }], undefined, 27],
    ['a function without parameters', undefined, [user('hello')], [tool('foo', noProperties)], 31],
    ['a function with a description', undefined, [user('hello')], [tool('foo', noProperties, 'Do a foo')], 36],
    ['a function with a string parameter', undefined, [user('hello')], [tool('bing_bong', { type: 'object', properties: { foo: { type: 'string' } } }, 'Do a bing bong')], 49],
    ['a described number parameter', undefined, [user('hello')], [tool('bing_bong', { type: 'object', properties: { foo: { type: 'string' }, bar: { type: 'number', description: 'A number' } } }, 'Do a bing bong')], 57],
    ['a nested object with an enum', undefined, [user('hello')], [tool('bing_bong', { type: 'object', properties: { foo: { type: 'object', properties: { bar: { type: 'string', enum: ['a', 'b', 'c'] }, baz: { type: 'boolean' } } } } }, 'Do a bing bong')], 68],
    ['system prompt and a function', 'Hello', [user('Hi there')], [tool('do_stuff', noProperties)], 35],
    ['system prompt with a colon and a function', 'Hello:', [user('Hi there')], [tool('do_stuff', noProperties)], 35],
    ['two system messages and a function', 'Hello:', [{ role: 'system', content: 'Hello' }, user('Hi there')], [tool('do_stuff', noProperties)], 40],
    ['arrays of objects, required fields, enums', undefined, [user('hello')], [tool('get_recipe', {
      type: 'object',
      required: ['ingredients', 'instructions', 'time_to_cook'],
      properties: {
        ingredients: { type: 'array', items: { type: 'object', required: ['name', 'unit', 'amount'], properties: { name: { type: 'string' }, unit: { enum: ['grams', 'ml', 'cups', 'pieces', 'teaspoons'], type: 'string' }, amount: { type: 'number' } } } },
        instructions: { type: 'array', items: { type: 'string' }, description: 'Steps to prepare the recipe (no numbering)' },
        time_to_cook: { type: 'number', description: 'Total time to prepare the recipe in minutes' },
      },
    })], 106],
  ];
  it.each(cases)('%s', (_name, system, messages, tools, tokens) => {
    expect(promptTokens('gpt-3.5-turbo', system, messages, tools).tokens).toBe(tokens);
  });
});

describe('image token formulas match the providers\' worked examples', () => {
  const rule = (model: string) => openAiImageRules.find(([prefix]) => model.startsWith(prefix))?.[1] ?? openAiImageRules[0]![1];

  it('OpenAI tiles: 1024×1024 high is 765 on gpt-4o, 2048×4096 is 1105, low is 85', () => {
    // @see https://platform.openai.com/docs/guides/images-vision#calculating-costs
    expect(countOpenAiImage(rule('gpt-4o'), { width: 1024, height: 1024 }, 'high')).toEqual({ tokens: 765, exact: true });
    expect(countOpenAiImage(rule('gpt-4o'), { width: 2048, height: 4096 }, 'high')).toEqual({ tokens: 1105, exact: true });
    expect(countOpenAiImage(rule('gpt-4o'), { width: 4096, height: 8192 }, 'low')).toEqual({ tokens: 85, exact: true });
  });

  it('OpenAI patches: 1024×1024 is 1024 patches, 1800×2400 is resized to 1452 patches', () => {
    const patches = { kind: 'patches' as const, multiplier: 1, maxPatches: 1536 };
    expect(countOpenAiImage(patches, { width: 1024, height: 1024 }, 'auto').tokens).toBe(1024);
    expect(countOpenAiImage(patches, { width: 1800, height: 2400 }, 'auto').tokens).toBe(1452);
    expect(countOpenAiImage(rule('gpt-4.1-mini'), { width: 1024, height: 1024 }, 'auto').tokens).toBe(Math.ceil(1024 * 1.62));
  });

  it('an image of unknown size costs the most it could, flagged inexact', () => {
    expect(countOpenAiImage(rule('gpt-4o'), undefined, 'high')).toEqual({ tokens: 85 + 170 * 8, exact: false });
  });

  it('Anthropic: 28 px tiles, 1000×1000 is 1,296 tokens, large images capped by tier', () => {
    // @see https://docs.anthropic.com/en/docs/build-with-claude/vision#calculate-image-costs
    const older = { maxLongEdgePixels: 1568, maxTokens: 1568 };
    const newer = { maxLongEdgePixels: 2576, maxTokens: 4784 };
    expect(countAnthropicImage(older, { width: 1000, height: 1000 }).tokens).toBe(1296);
    expect(countAnthropicImage(older, { width: 200, height: 200 }).tokens).toBe(64);
    expect(countAnthropicImage(older, { width: 6000, height: 4000 }).tokens).toBeLessThanOrEqual(1568);
    expect(countAnthropicImage(newer, { width: 6000, height: 4000 }).tokens).toBeLessThanOrEqual(4784);
    expect(countAnthropicImage(newer, { width: 6000, height: 4000 }).tokens).toBeGreaterThan(4000);
  });

  it('Gemini: 258 up to 384×384, 258 per tile above, a fixed cost per resolution on Gemini 3', () => {
    // @see https://ai.google.dev/gemini-api/docs/tokens#multimodal-tokens
    expect(countGeminiImage('gemini-2.5-flash', { width: 384, height: 384 }).tokens).toBe(258);
    expect(countGeminiImage('gemini-2.5-flash', { width: 1024, height: 1024 }).tokens).toBe(258 * 4);
    expect(countGeminiImage('gemini-3-pro-preview', { width: 1024, height: 1024 }).tokens).toBe(1120);
    expect(countGeminiImage('gemini-3-pro-preview', { width: 1024, height: 1024 }, 'low').tokens).toBe(280);
  });
});
