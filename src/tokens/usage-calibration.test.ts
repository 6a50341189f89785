import { describe, expect, it } from 'vitest';
import type { ModelMessage } from '../message/message.js';
import { createTokenCounter } from './create-token-counter.js';
import { loadEncoding } from './encoding/load-encoding.js';
import { inputTokensFromUsage } from './provider-usage.js';
import { UsageCalibration } from './usage-calibration.js';

const counter = createTokenCounter({ encodings: { o200k_base: await loadEncoding('o200k_base') } });
const claude = { provider: 'anthropic', model: 'claude-sonnet-4-5' };
const turn = (i: number): ModelMessage[] => [
  { role: 'user', content: `Please look at file ${i} and explain what it does.` },
  { role: 'assistant', content: `File ${i} parses the configuration and validates it. `.repeat(5) },
];

describe('inputTokensFromUsage', () => {
  it('reads each provider\'s usage shape, cache reads and writes included', () => {
    expect(inputTokensFromUsage({ input_tokens: 100, cache_read_input_tokens: 2000, cache_creation_input_tokens: 50, output_tokens: 7 })).toBe(2150);
    expect(inputTokensFromUsage({ prompt_tokens: 321, completion_tokens: 9, total_tokens: 330 })).toBe(321);
    expect(inputTokensFromUsage({ input_tokens: 77, output_tokens: 1 })).toBe(77);
    expect(inputTokensFromUsage({ promptTokenCount: 55, candidatesTokenCount: 3 })).toBe(55);
    expect(inputTokensFromUsage({ something: 'else' })).toBeUndefined();
  });
});

describe('UsageCalibration', () => {
  it('anchors on the reported count and adds only the estimate of what is new', () => {
    const calibration = new UsageCalibration({ counter });
    const messages = [...turn(0), ...turn(1)];
    calibration.record({ ...claude, request: { system: 'sys', messages }, inputTokens: 1234 });
    expect(calibration.count({ ...claude, request: { system: 'sys', messages } })).toMatchObject({ tokens: 1234, method: 'reported+usage' });
    const next = turn(2);
    const grown = calibration.count({ ...claude, request: { system: 'sys', messages: [...messages, ...next] } });
    const newEstimate = next.reduce((sum, message) => sum + Math.ceil(counter.countMessage({ ...claude, message }).tokens * calibration.factor(claude, 'prose')), 0);
    expect(grown.tokens).toBe(1234 + newEstimate);
    expect(grown.exact).toBe(false);
  });

  it('learns a clamped correction factor that moves future estimates toward the reports', () => {
    const calibration = new UsageCalibration({ counter });
    const messages = turn(0);
    const estimate = counter.count({ ...claude, request: { messages } }).tokens;
    calibration.record({ ...claude, request: { messages }, inputTokens: Math.round(estimate * 1.3) });
    const other = turn(5);
    const corrected = calibration.count({ ...claude, request: { messages: other } }).tokens;
    const raw = counter.count({ ...claude, request: { messages: other } }).tokens;
    expect(corrected / raw).toBeGreaterThan(1.2);
    calibration.record({ ...claude, request: { messages }, inputTokens: estimate * 50 });
    expect(calibration.factor(claude, 'prose')).toBeLessThanOrEqual(2);
  });

  it('a model or provider switch drops the anchor', () => {
    const calibration = new UsageCalibration({ counter });
    const messages = turn(0);
    calibration.record({ ...claude, request: { messages }, inputTokens: 999 });
    const onGemini = calibration.count({ provider: 'google', model: 'gemini-2.5-pro', request: { messages } });
    expect(onGemini.tokens).not.toBe(999);
    expect(calibration.count({ ...claude, request: { messages } }).tokens).not.toBe(999);
  });

  it('leaves exact counts alone', () => {
    const calibration = new UsageCalibration({ counter });
    const gpt = { provider: 'openai', model: 'gpt-4o' };
    const messages = turn(0);
    calibration.record({ ...gpt, request: { messages }, inputTokens: 5000 });
    const other = turn(3);
    expect(calibration.count({ ...gpt, request: { messages: other } })).toEqual(counter.count({ ...gpt, request: { messages: other } }));
  });
});
