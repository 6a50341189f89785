import { describe, expect, it } from 'vitest';
import { redactSecrets } from './redact-secrets.js';

describe('redactSecrets', () => {
  it('takes out API keys, bearer tokens, key headers and key parameters, and keeps their labels', () => {
    expect(redactSecrets('Incorrect API key provided: sk-proj-Q7vX2mN9bL4kR8tY.')).toBe('Incorrect API key provided: sk-proj-[redacted].');
    expect(redactSecrets('invalid x-api-key: sk-ant-api03-Zx81QmB0aLp9')).toBe('invalid x-api-key: [redacted]');
    expect(redactSecrets('sent Authorization: Bearer tok_4f9a8b7c6d5e')).toBe('sent Authorization: Bearer [redacted]');
    expect(redactSecrets('API key not valid: AIzaSyD4abcdefghijklmnopqrstuvwxyz012')).toBe('API key not valid: AIza[redacted]');
    expect(redactSecrets('GET /v1beta/models?key=AIzaSyD4abcdefghijklmnopqrstuvwxyz012&alt=sse')).toBe('GET /v1beta/models?key=[redacted]&alt=sse');
    expect(redactSecrets('{"api_key": "abc123def456"}')).toBe('{"api_key": "[redacted]"}');
  });

  it('leaves text without secrets as it is', () => {
    const text = '500 The server had an error while processing your request. Retry with a smaller sk- prefix task-list.';
    expect(redactSecrets(text)).toBe(text);
  });
});
