import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ModelMessage } from '../message/message.js';
import { conversationArbitrary, withoutEvents } from '../testing/conversation-arbitrary.js';
import { createTokenCounter } from './create-token-counter.js';
import { loadEncoding } from './encoding/load-encoding.js';
import type { TextEncoding } from './encoding/text-encoding.js';

const o200k = await loadEncoding('o200k_base');
const cl100k = await loadEncoding('cl100k_base');
const gpt4o = { provider: 'openai', model: 'gpt-4o' };

/** The real o200k encoding, observed: how much text each count asks it to encode. */
function observed(encoding: TextEncoding) {
  const seen = { characters: 0 };
  const wrapped: TextEncoding = {
    name: encoding.name,
    countText: (text) => {
      seen.characters += text.length;
      return encoding.countText(text);
    },
  };
  return { encoding: wrapped, seen };
}

describe('createTokenCounter', () => {
  it('counts OpenAI requests exactly and says so', () => {
    const counter = createTokenCounter({ encodings: { o200k_base: o200k } });
    expect(counter.countMessage({ ...gpt4o, message: { role: 'user', content: 'hello world' } })).toEqual({ tokens: 6, exact: true, method: 'o200k_base' });
  });

  it('text containing special-token strings counts as text and does not throw', () => {
    const counter = createTokenCounter({ encodings: { o200k_base: o200k } });
    const count = counter.countMessage({ ...gpt4o, message: { role: 'user', content: 'see <|endoftext|> and <|im_start|>' } });
    expect(count.exact).toBe(true);
    expect(count.tokens).toBeGreaterThan(10);
  });

  it('recounting a conversation that grew by one message encodes only the new message', () => {
    const { encoding, seen } = observed(o200k);
    const counter = createTokenCounter({ encodings: { o200k_base: encoding } });
    const messages: ModelMessage[] = Array.from({ length: 200 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message ${i} `.repeat(50) }));
    counter.count({ ...gpt4o, request: { system: 'sys', messages } });
    const before = seen.characters;
    const added: ModelMessage = { role: 'user', content: 'one more question' };
    counter.count({ ...gpt4o, request: { system: 'sys', messages: [...messages, added] } });
    expect(seen.characters - before).toBe('user'.length + added.content.length);
  });

  it('finds equal content in the cache even as a new object (a reloaded history)', () => {
    const { encoding, seen } = observed(o200k);
    const counter = createTokenCounter({ encodings: { o200k_base: encoding } });
    const message: ModelMessage = { role: 'user', content: 'x'.repeat(5000) };
    const first = counter.countMessage({ ...gpt4o, message });
    const before = seen.characters;
    expect(counter.countMessage({ ...gpt4o, message: structuredClone(message) })).toEqual(first);
    expect(seen.characters).toBe(before);
  });

  it('BEHAVIOUR 6: a model switch recounts for the new model', () => {
    const counter = createTokenCounter({ encodings: { o200k_base: o200k, cl100k_base: cl100k } });
    const message: ModelMessage = { role: 'user', content: '大家好，这是一个测试。'.repeat(30) };
    const onGpt4o = counter.countMessage({ ...gpt4o, message });
    const onGpt4 = counter.countMessage({ provider: 'openai', model: 'gpt-4', message });
    const onClaude = counter.countMessage({ provider: 'anthropic', model: 'claude-sonnet-4-5', message });
    expect(onGpt4.method).toBe('cl100k_base');
    expect(onGpt4.tokens).not.toBe(onGpt4o.tokens);
    expect(onClaude).toMatchObject({ exact: false, method: 'claude-2024 estimate' });
    expect(onClaude.tokens).toBeGreaterThan(onGpt4o.tokens);
  });

  it('BEHAVIOUR 7: a counter that throws or answers 0 falls back to bytes/4, flagged, and is not cached', () => {
    let calls = 0;
    const broken = (answer: () => number): TextEncoding => ({
      name: 'o200k_base',
      countText: () => {
        calls++;
        return answer();
      },
    });
    const warnings: string[] = [];
    const throwing = () => {
      throw new Error('boom');
    };
    for (const answer of [() => 0, throwing]) {
      calls = 0;
      const counter = createTokenCounter({ encodings: { o200k_base: broken(answer) }, onWarning: (w) => warnings.push(w) });
      const message: ModelMessage = { role: 'user', content: 'a perfectly ordinary sentence' };
      const first = counter.countMessage({ ...gpt4o, message });
      expect(first).toMatchObject({ exact: false, method: 'bytes/4 (fallback)' });
      expect(first.tokens).toBe(Math.ceil(JSON.stringify(message).length / 4));
      counter.countMessage({ ...gpt4o, message });
      expect(calls).toBe(2); // asked again on the second count: the fallback was not cached
    }
    expect(warnings.some((warning) => warning.includes('boom'))).toBe(true);
  });

  it('an unknown model gets its provider\'s defaults and one warning; an unknown provider bytes/4', () => {
    const warnings: string[] = [];
    const counter = createTokenCounter({ encodings: { o200k_base: o200k }, onWarning: (w) => warnings.push(w) });
    const message: ModelMessage = { role: 'user', content: 'hi' };
    counter.countMessage({ provider: 'openai', model: 'gpt-99-turbo', message });
    counter.countMessage({ provider: 'openai', model: 'gpt-99-turbo', message: { role: 'user', content: 'again' } });
    expect(warnings.filter((warning) => warning.includes('gpt-99-turbo'))).toHaveLength(1);
    expect(counter.countMessage({ provider: 'mistral', model: 'large', message })).toMatchObject({ exact: false, method: 'bytes/4' });
    expect(counter.modelInfo({ provider: 'openai', model: 'gpt-99-turbo' })).toMatchObject({ known: false, contextWindowTokens: 128_000 });
    expect(counter.modelInfo({ provider: 'openai', model: 'gpt-4o' })).toMatchObject({ known: true, contextWindowTokens: 128_000 });
  });

  it('the catalog can be corrected in configuration', () => {
    const counter = createTokenCounter({ encodings: { o200k_base: o200k }, models: { 'openai/gpt-99-turbo': { contextWindowTokens: 2_000_000, maxOutputTokens: 100_000 } } });
    expect(counter.modelInfo({ provider: 'openai', model: 'gpt-99-turbo' })).toMatchObject({ known: true, contextWindowTokens: 2_000_000, maxOutputTokens: 100_000 });
  });

  it('adds Anthropic\'s hidden tool prompt by tool_choice: 346 for auto, 313 for any', () => {
    const counter = createTokenCounter({ encodings: { o200k_base: o200k } });
    const tools = [{ name: 'f', inputSchema: { type: 'object' } }];
    const target = { provider: 'anthropic', model: 'claude-sonnet-4-5' };
    const auto = counter.countPreamble({ ...target, tools, toolChoice: 'auto' }).tokens;
    const any = counter.countPreamble({ ...target, tools, toolChoice: 'any' }).tokens;
    const none = counter.countPreamble({ ...target }).tokens;
    expect(auto - any).toBe(346 - 313);
    expect(auto - none).toBeGreaterThan(346);
  });

  it('counts a base64 blob by its measured rate, and an image part by the image formula', () => {
    const counter = createTokenCounter({ encodings: { o200k_base: o200k } });
    const blob = Buffer.from(Array.from({ length: 30_000 }, (_, i) => (i * 7919) % 256)).toString('base64');
    const text = counter.countMessage({ ...gpt4o, message: { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c', toolName: 'screenshot', output: { type: 'text', value: blob } }] } });
    const exact = o200k.countText(blob);
    expect(text.exact).toBe(false);
    expect(Math.abs(text.tokens - exact) / exact).toBeLessThan(0.05);
    const png1x1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';
    const image = counter.countMessage({ ...gpt4o, message: { role: 'user', content: [{ type: 'image', image: `data:image/png;base64,${png1x1}` }] } });
    expect(image).toMatchObject({ tokens: 3 + 1 + 85 + 170, exact: true });
  });

  it('counts pathological runs exactly enough: a 1 MB run of "=" is 15,625 tokens', () => {
    const counter = createTokenCounter({ encodings: { o200k_base: o200k } });
    const count = counter.countMessage({ ...gpt4o, message: { role: 'user', content: '='.repeat(1_000_000) } });
    expect(count.tokens).toBe(3 + 1 + 15_625);
  });

  it('the sum of segment counts equals the count of the whole, for the exact counters', () => {
    const counter = createTokenCounter({ encodings: { o200k_base: o200k, cl100k_base: cl100k } });
    fc.assert(
      fc.property(conversationArbitrary({ maxExchanges: 6 }), fc.constantFrom('gpt-4o', 'gpt-4', 'gpt-5'), (conversation, model) => {
        const target = { provider: 'openai', model };
        const messages = withoutEvents(conversation.messages);
        const whole = counter.count({ ...target, request: { system: conversation.system, tools: conversation.tools, messages } });
        const parts =
          counter.countPreamble({ ...target, system: conversation.system, tools: conversation.tools }).tokens +
          messages.reduce((sum, message) => sum + counter.countMessage({ ...target, message }).tokens, 0);
        expect(whole.tokens).toBe(parts);
      }),
      { numRuns: 200 },
    );
  });
});

describe('a tool call whose arguments are not JSON', () => {
  const raw = '{"path": "a.ts"';
  const call = (input: unknown, options?: Record<string, string>): ModelMessage => ({
    role: 'assistant',
    content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'read_file', input, ...(options ? { providerOptions: { openai: options } } : {}) }],
  });
  const counter = createTokenCounter({ encodings: { o200k_base: o200k } });

  it('counts its raw text as OpenAI is sent it, not the text quoted as a JSON string', () => {
    const asSent = counter.countMessage({ ...gpt4o, message: call({}, { arguments: raw }) });
    expect(counter.countMessage({ ...gpt4o, message: call(raw) })).toEqual(asSent);
    expect(asSent.tokens).toBe(counter.countMessage({ ...gpt4o, message: call({}) }).tokens - o200k.countText('{}') + o200k.countText(raw));
  });

  it('counts the object Anthropic is sent it in', () => {
    const claude = { provider: 'anthropic', model: 'claude-sonnet-4-5' };
    expect(counter.countMessage({ ...claude, message: call(raw) })).toEqual(counter.countMessage({ ...claude, message: call({ _raw_arguments: raw }) }));
  });
});
