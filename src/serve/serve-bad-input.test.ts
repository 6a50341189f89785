import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isSlidingContextError } from '../errors/sliding-context-error.js';
import { applyEvents } from '../message/apply-events.js';
import { HistoryStore } from '../store/history-store.js';
import { loadTokenCounter } from '../tokens/load-token-counter.js';
import { startLoopbackServer } from '../testing/loopback-server.js';
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

const post = (path: string, body: string | Buffer, headers: Record<string, string> = {}) =>
  fetch(`${proxy.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'authorization': 'Bearer sk-test', ...headers }, body });

/** A request with headers exactly as given (a `Host` of one's own, a header twice, raw bytes), by node:http; its status and JSON body. */
function rawRequest(method: string, path: string, body: string, headers: Record<string, string | string[]>): Promise<{ status: number; body: unknown }> {
  const { port } = new URL(proxy.url);
  return new Promise((resolve, reject) => {
    const sent = httpRequest({ host: '127.0.0.1', port, path, method, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown });
      });
    });
    sent.on('error', reject);
    // A Buffer: a string body sent with the headers would have them written as UTF-8, not byte for byte.
    sent.end(Buffer.from(body));
  });
}

const rawPost = (path: string, body: string, headers: Record<string, string | string[]>) => rawRequest('POST', path, body, headers);

const chatBody = (content: string) => JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content }] });

describe('serve refuses bad input in the provider\'s own error shape and stores nothing', () => {
  it.each([
    ['malformed JSON', '/v1/chat/completions', '{"model": "gpt-4o", "messages": [', 'INVALID_JSON'],
    ['a body that is not Chat Completions', '/v1/chat/completions', JSON.stringify({ model: 'gpt-4o', messages: 'hello' }), 'INVALID_REQUEST_BODY'],
    ['no model', '/v1/responses', JSON.stringify({ input: 'hello' }), 'INVALID_REQUEST_BODY'],
    ['a tool result without its call', '/v1/chat/completions', JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }, { role: 'tool', tool_call_id: 'call_9', content: 'x' }] }), 'ORPHANED_TOOL_RESULT'],
    ['no messages', '/v1/chat/completions', JSON.stringify({ model: 'gpt-4o', messages: [] }), 'INVALID_REQUEST_BODY'],
    ['a system message and no user message', '/v1/chat/completions', JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'system', content: 'You are terse.' }] }), 'INVALID_REQUEST_BODY'],
    ['no input items', '/v1/responses', JSON.stringify({ model: 'gpt-4o', input: [] }), 'INVALID_REQUEST_BODY'],
    ['bytes that are not UTF-8 in a string', '/v1/chat/completions', Buffer.concat([Buffer.from('{"model":"gpt-4o","messages":[{"role":"user","content":"caf'), Buffer.from([0xe9]), Buffer.from('"}]}')]), 'INVALID_JSON'],
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
    ['no messages', JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 10, system: 'You are terse.', messages: [] })],
    ['a tool_use whose input is not an object', JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read', input: 'zz' }] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'x' }] }] })],
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

  it('an upstream whose answer breaks off after its headers is a 502 that says so, not "could not be reached"', async () => {
    const breaking = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      response.write('{"id": "chatcmpl-1", "choices": [', () => response.destroy());
    });
    await new Promise<void>((resolve) => breaking.listen(0, '127.0.0.1', resolve));
    const broken = await startProxy({ store, port: 0, upstreamOpenAi: `http://127.0.0.1:${String((breaking.address() as AddressInfo).port)}` });
    try {
      const response = await fetch(`${broken.url}/v1/chat/completions`, { method: 'POST', body: chatBody('cut off') });
      expect(response.status).toBe(502);
      expect(((await response.json()) as { error: { message: string; code: string } }).error).toMatchObject({ message: expect.stringContaining('the upstream\'s answer broke off') as unknown, code: 'upstream_broke_off' });
    } finally {
      await broken.close();
      await new Promise((resolve) => breaking.close(resolve));
    }
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

  it('names a port in use, or an address the machine does not have, in one sentence', async () => {
    const { port } = new URL(proxy.url);
    const inUse: unknown = await startProxy({ store, port: Number(port) }).catch((caught: unknown) => caught);
    expect(isSlidingContextError(inUse, 'INVALID_OPTION')).toBe(true);
    expect((inUse as Error).message).toBe(`--port ${port}: 127.0.0.1:${port} is in use by another program; give another port, or 0 for a free one.`);
    const elsewhere: unknown = await startProxy({ store, host: '192.0.2.1', port: 0, token: 'secret' }).catch((caught: unknown) => caught);
    expect(isSlidingContextError(elsewhere, 'INVALID_OPTION')).toBe(true);
    expect((elsewhere as Error).message).toContain('--host 192.0.2.1: not an address of this machine');
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

describe('the x-sliding-context-agent header', () => {
  it.each([
    ['given twice', ['first', 'second'], 'given 2 times'],
    ['with a control character', 'tab\there', 'control characters'],
    ['over 200 characters', 'n'.repeat(201), '201 characters long'],
    ['not UTF-8', Buffer.from([0x61, 0xff, 0x62]).toString('latin1'), 'not UTF-8'],
  ])('%s is refused, and nothing is stored', async (_case, value, says) => {
    const agents = (await store.listAgents()).length;
    const answer = await rawPost('/v1/chat/completions', chatBody('pinned badly'), { 'x-sliding-context-agent': value });
    expect(answer).toEqual({ status: 400, body: { error: { message: expect.stringContaining(says) as unknown, type: 'invalid_request_error', param: null, code: 'invalid_option' } } });
    expect(await store.listAgents()).toHaveLength(agents);
  });

  it('names the agent in UTF-8, as the client wrote it', async () => {
    const name = 'héllo-代理';
    const answer = await rawPost('/v1/chat/completions', chatBody('pinned by a name in UTF-8'), { 'x-sliding-context-agent': Buffer.from(name).toString('latin1') });
    expect(answer).toMatchObject({ status: 200 });
    await proxy.settled();
    expect((await store.listAgents()).map((agent) => agent.name)).toContain(name);
  });
});

describe('serve on loopback without a token', () => {
  beforeEach(() => {
    upstream.received.length = 0;
  });

  it.each([
    ['names another host (DNS rebinding)', { host: 'attacker.example' }, 'names the host "attacker.example"'],
    ['names another host with a port', { host: 'attacker.example:8787' }, 'names the host'],
    ['comes from another site\'s page', { origin: 'https://evil.example' }, 'from a web page of "https://evil.example"'],
    ['comes from a page of an opaque origin', { origin: 'null' }, 'from a web page of "null"'],
    ['comes from a page on another local port (a dev server\'s)', { origin: 'http://localhost:3000' }, 'from a web page of "http://localhost:3000"'],
  ])('refuses a request that %s, in the provider\'s shape, and stores nothing', async (_case, headers, says) => {
    const agents = (await store.listAgents()).length;
    const answer = await rawPost('/v1/chat/completions', chatBody('from elsewhere'), headers);
    expect(answer).toEqual({ status: 403, body: { error: { message: expect.stringContaining(says) as unknown, type: 'permission_error', param: null, code: 'forbidden' } } });
    const anthropic = await rawPost('/v1/messages', JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }), headers);
    expect(anthropic).toEqual({ status: 403, body: { type: 'error', error: { type: 'permission_error', message: expect.stringContaining(says) as unknown } } });
    expect(await store.listAgents()).toHaveLength(agents);
    expect(upstream.received).toEqual([]);
  });

  it.each([
    ['localhost with its port', { host: 'localhost:8787' }],
    ['[::1]', { host: '[::1]:8787' }],
  ])('serves a request from %s', async (_case, headers) => {
    const answer = await rawRequest('GET', '/v1/models', '', headers);
    expect(answer.status).toBe(200);
    expect(upstream.received).toHaveLength(1);
  });

  it('serves a request from its own page', async () => {
    const own = new URL(proxy.url);
    const answer = await rawRequest('GET', '/v1/models', '', { host: own.host, origin: own.origin });
    expect(answer.status).toBe(200);
    expect(upstream.received).toHaveLength(1);
  });
});

describe('the same request sent twice at once (a client\'s retry)', () => {
  it('stores one answer after it, never two in a row; the other answer forks when a request carries it', async () => {
    // Both requests are in the upstream before either is answered.
    let arrived = 0;
    let bothIn: () => void = () => undefined;
    const together = new Promise<void>((resolve) => (bothIn = resolve));
    const slow = await startLoopbackServer(async () => {
      arrived += 1;
      if (arrived === 2) bothIn();
      await together;
      return { status: 200, body: { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'gpt-4o', choices: [{ index: 0, message: { role: 'assistant', content: `answer ${String(arrived)}-${String(Math.random())}` }, finish_reason: 'stop' }], usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 } } };
    });
    const twiceStore = await HistoryStore.open({ memory: true });
    const twice = await startProxy({ store: twiceStore, port: 0, upstreamOpenAi: slow.url });
    try {
      const ask = () => fetch(`${twice.url}/v1/chat/completions`, { method: 'POST', body: chatBody('asked twice') });
      const answers = await Promise.all([ask(), ask()]);
      const agentId = answers[0].headers.get('x-sliding-context-agent')!;
      expect(answers.map((answer) => answer.headers.get('x-sliding-context-agent'))).toEqual([agentId, agentId]);
      const texts = await Promise.all(answers.map(async (answer) => ((await answer.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content));
      await twice.settled();
      const stored = (await twiceStore.history(agentId)).map((row) => row.message);
      expect(stored.map((message) => message.role)).toEqual(['user', 'assistant']);
      expect(texts).toContain((stored[1] as { content: string }).content);
      // The client goes on from the answer that was not stored: its request forks the conversation there.
      const other = texts.find((text) => text !== (stored[1] as { content: string }).content)!;
      const next = await fetch(`${twice.url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'asked twice' }, { role: 'assistant', content: other }, { role: 'user', content: 'go on' }] }) });
      expect(next.status).toBe(200);
      await twice.settled();
      const fork = next.headers.get('x-sliding-context-agent')!;
      expect(fork).not.toBe(agentId);
      expect(applyEvents((await twiceStore.history(fork)).map((row) => row.message))).toEqual([{ role: 'user', content: 'asked twice' }, { role: 'assistant', content: other }, { role: 'user', content: 'go on' }, expect.objectContaining({ role: 'assistant' })]);
    } finally {
      await twice.close();
      await slow.close();
      await twiceStore.close();
    }
  });
});
