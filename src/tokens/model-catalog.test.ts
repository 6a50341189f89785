import { describe, expect, it } from 'vitest';
import { createTokenCounter } from './create-token-counter.js';
import { loadEncoding } from './encoding/load-encoding.js';
import { modelFamily, resolveModel } from './model-catalog.js';

describe('resolveModel', () => {
  it.each([
    ['anthropic', 'claude-sonnet-4-5', 200_000, 64_000],
    ['anthropic', 'claude-sonnet-4-6', 1_000_000, 64_000],
    ['anthropic', 'claude-haiku-4-5', 200_000, 64_000],
    ['anthropic', 'claude-opus-4-1', 200_000, 32_000],
    ['anthropic', 'claude-opus-4-5', 200_000, 64_000],
    ['anthropic', 'claude-sonnet-4-5-20250929', 200_000, 64_000],
    ['anthropic', 'claude-haiku-4-5-20251001', 200_000, 64_000],
    ['google', 'gemini-2.5-pro', 1_048_576, 65_536],
    ['google', 'gemini-2.5-flash', 1_048_576, 65_536],
    ['google', 'gemini-3-pro-preview', 1_048_576, 65_536],
    ['google', 'gemini-3-flash-preview', 1_048_576, 65_536],
    ['google', 'gemini-3.1-pro-preview', 1_048_576, 65_536],
    ['openai', 'gpt-5', 400_000, 128_000],
    ['openai', 'gpt-5-mini', 400_000, 128_000],
    ['openai', 'gpt-5.1', 400_000, 128_000],
    ['openai', 'gpt-5.2', 400_000, 128_000],
    ['openai', 'gpt-5-2025-08-07', 400_000, 128_000],
  ])('knows %s/%s: %i tokens of context, %i of output', (provider, model, contextWindowTokens, maxOutputTokens) => {
    expect(resolveModel(provider, model)).toMatchObject({ provider, model, known: true, contextWindowTokens, maxOutputTokens });
  });

  it('resolves a dated id as its family, overrides included', () => {
    expect(modelFamily('claude-sonnet-4-5-20250929')).toBe('claude-sonnet-4-5');
    expect(modelFamily('gpt-5-2025-08-07')).toBe('gpt-5');
    expect(modelFamily('gemini-2.5-pro')).toBe('gemini-2.5-pro');
    const overrides = { 'anthropic/claude-sonnet-4-5': { contextWindowTokens: 1_000_000 } };
    expect(resolveModel('anthropic', 'claude-sonnet-4-5-20250929', overrides).contextWindowTokens).toBe(1_000_000);
  });

  it('an unknown model gets its provider defaults, and the counter warns', async () => {
    expect(resolveModel('anthropic', 'claude-future-9')).toMatchObject({ known: false, contextWindowTokens: 200_000 });
    const warnings: string[] = [];
    const counter = createTokenCounter({ encodings: { o200k_base: await loadEncoding('o200k_base') }, onWarning: (message) => warnings.push(message) });
    for (const [provider, model] of [['anthropic', 'claude-sonnet-4-5'], ['google', 'gemini-3-pro-preview'], ['openai', 'gpt-5.2'], ['anthropic', 'claude-future-9']] as const) {
      counter.countMessage({ provider, model, message: { role: 'user', content: 'hi' } });
    }
    expect(warnings).toEqual([expect.stringMatching(/^Unknown model anthropic\/claude-future-9:/)]);
  });
});
