import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSlidingContextError } from '../errors/sliding-context-error.js';
import { HistoryStore } from '../store/history-store.js';
import { loadTokenCounter } from '../tokens/load-token-counter.js';
import { startScriptedUpstream } from './_test-scripted-upstream.js';
import { type RunningProxy, startProxy } from './start-proxy.js';

let store: HistoryStore;
let upstream: Awaited<ReturnType<typeof startScriptedUpstream>>;
let proxy: RunningProxy;

beforeAll(async () => {
  store = await HistoryStore.open({ memory: true });
  upstream = await startScriptedUpstream(await loadTokenCounter({ targets: [{ provider: 'openai', model: 'gpt-4o' }] }));
  proxy = await startProxy({ store, port: 0, budgetTokens: 2_000, bodyLimitBytes: 10_000, upstreamOpenAi: upstream.url, upstreamAnthropic: upstream.url });
});
afterAll(async () => {
  await proxy.close();
  await upstream.close();
  await store.close();
});

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${proxy.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'authorization': 'Bearer sk-test', ...headers }, body });

describe('serve refuses bad input in the provider\'s own error shape and stores nothing', () => {
  it.each([
    ['malformed JSON', '/v1/chat/completions', '{"model": "gpt-4o", "messages": [', 'INVALID_JSON'],
    ['a body that is not Chat Completions', '/v1/chat/completions', JSON.stringify({ model: 'gpt-4o', messages: 'hello' }), 'INVALID_REQUEST_BODY'],
    ['no model', '/v1/responses', JSON.stringify({ input: 'hello' }), 'INVALID_REQUEST_BODY'],
    ['a tool result without its call', '/v1/chat/completions', JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }, { role: 'tool', tool_call_id: 'call_9', content: 'x' }] }), 'ORPHANED_TOOL_RESULT'],
  ])('OpenAI: %s', async (_case, path, body, code) => {
    const response = await post(path, body);
    expect(response.status).toBe(400);
    const answer = await response.json() as { error: { message: string; type: string; param: unknown; code: string } };
    expect(answer).toEqual({ error: { message: expect.stringMatching(/^sliding-context: /) as unknown, type: 'invalid_request_error', param: null, code: code.toLowerCase() } });
    expect(await store.listAgents()).toEqual([]);
    expect(upstream.received).toEqual([]);
  });

  it.each([
    ['malformed JSON', '{"model": "claude-sonnet-4-5", "max_tokens": 10, "messages": [}'],
    ['an unknown role', JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'robot', content: 'hi' }] })],
    ['an assistant message first', JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'assistant', content: 'hi' }] })],
  ])('Anthropic: %s', async (_case, body) => {
    const response = await post('/v1/messages', body, { 'anthropic-version': '2023-06-01' });
    expect(response.status).toBe(400);
    const answer = await response.json() as { type: string; error: { type: string; message: string } };
    expect(answer.type).toBe('error');
    expect(answer.error.type).toBe('invalid_request_error');
    expect(answer.error.message).toMatch(/^sliding-context: /);
    expect(await store.listAgents()).toEqual([]);
    expect(upstream.received).toEqual([]);
  });

  it('a body over the cap is refused with 413, unread', async () => {
    const response = await post('/v1/messages', JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'x'.repeat(20_000) }] }));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ type: 'error', error: { type: 'request_too_large', message: 'sliding-context: The request body is over the proxy\'s limit of 10000 bytes.' } });
    expect(await store.listAgents()).toEqual([]);
  });

  it('an upstream that cannot be reached is a 502 in the provider\'s shape; the user\'s turn is kept', async () => {
    const unreachable = await startProxy({ store, port: 0, upstreamOpenAi: 'http://127.0.0.1:9' });
    try {
      const response = await fetch(`${unreachable.url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'anyone there?' }] }) });
      expect(response.status).toBe(502);
      expect(((await response.json()) as { error: { type: string } }).error.type).toBe('server_error');
      const agentId = response.headers.get('x-sliding-context-agent')!;
      expect((await store.history(agentId)).map((row) => row.message)).toEqual([{ role: 'user', content: 'anyone there?' }]);
    } finally {
      await unreachable.close();
    }
  });
});

describe('serve off loopback', () => {
  it('refuses to bind another address without --token', async () => {
    const error = await startProxy({ store, host: '0.0.0.0', port: 0 }).catch((caught: unknown) => caught);
    expect(isSlidingContextError(error, 'INVALID_OPTION')).toBe(true);
    expect((error as Error).message).toContain('requires --token');
  });

  it('with --token, answers 401 without it or with a wrong one, and serves the right one', async () => {
    const guarded = await startProxy({ store, host: '0.0.0.0', port: 0, token: 'proxy-secret', upstreamOpenAi: upstream.url });
    const url = guarded.url.replace('0.0.0.0', '127.0.0.1');
    try {
      const models = (token?: string) => fetch(`${url}/v1/models`, { headers: { authorization: 'Bearer sk-test', ...(token === undefined ? {} : { 'x-sliding-context-token': token }) } });
      for (const token of [undefined, 'wrong-secret', 'proxy-secre']) {
        const refused = await models(token);
        expect(refused.status).toBe(401);
        expect(((await refused.json()) as { error: { type: string } }).error.type).toBe('authentication_error');
      }
      const served = await models('proxy-secret');
      expect(served.status).toBe(200);
      // The proxy's token stays with the proxy: the upstream gets the provider key only.
      const passed = upstream.received.at(-1)!;
      expect(passed.headers['x-sliding-context-token']).toBeUndefined();
      expect(passed.headers.authorization).toBe('Bearer sk-test');
    } finally {
      await guarded.close();
    }
  });
});
