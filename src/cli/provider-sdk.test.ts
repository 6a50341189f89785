import { describe, expect, it } from 'vitest';
import { providerSdk } from './provider-sdk.js';

describe('providerSdk', () => {
  it('takes an empty key variable as unset: a base URL needs none, and without one the key is missing', async () => {
    const env = { OPENAI_API_KEY: '' };
    const sdk = await providerSdk('openai', { env }, 'http://127.0.0.1:9/v1');
    expect(sdk.client.baseURL).toBe('http://127.0.0.1:9/v1');
    await expect(providerSdk('openai', { env })).rejects.toMatchObject({ code: 'MISSING_API_KEY' });
  });
});
