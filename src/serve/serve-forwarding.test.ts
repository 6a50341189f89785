import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HistoryStore } from '../store/history-store.js';
import { loadTokenCounter } from '../tokens/load-token-counter.js';
import { createWebHandler } from '../web/index.js';
import { startScriptedUpstream } from './_test-scripted-upstream.js';
import { type RunningProxy, startProxy } from './start-proxy.js';

let store: HistoryStore;
let upstream: Awaited<ReturnType<typeof startScriptedUpstream>>;
let proxy: RunningProxy;

beforeAll(async () => {
  store = await HistoryStore.open({ memory: true });
  upstream = await startScriptedUpstream(await loadTokenCounter({ targets: [{ provider: 'openai', model: 'gpt-4o' }] }));
  // No web view: as a second `serve` on a store another process holds runs.
  proxy = await startProxy({ store, port: 0, budgetTokens: 2_000, upstreamOpenAi: upstream.url, upstreamAnthropic: upstream.url });
});
afterAll(async () => {
  await proxy.close();
  await upstream.close();
  await store.close();
});
beforeEach(() => {
  upstream.received.length = 0;
});

interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: unknown;
}

/**
 * A request with headers exactly as given, by node:http; with `expect: 100-continue` the body
 * waits for the server's `100 Continue`, as curl sends a large body.
 */
function rawRequest(url: string, method: string, path: string, body: string | undefined, headers: Record<string, string>): Promise<RawAnswer> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const sent = httpRequest({ host: '127.0.0.1', port, path, method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text ? (JSON.parse(text) as unknown) : undefined });
      });
    });
    sent.on('error', reject);
    if (headers.expect === '100-continue') sent.on('continue', () => sent.end(body));
    else sent.end(body);
  });
}

const chatBody = (content: string) => JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content }] });

describe('headers of one hop stay with the proxy', () => {
  it('a body sent after `Expect: 100-continue` goes upstream, without the header', async () => {
    const body = chatBody('sent after 100 Continue');
    const answer = await rawRequest(proxy.url, 'POST', '/v1/chat/completions', body, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'expect': '100-continue' });
    expect(answer.status).toBe(200);
    expect(upstream.received).toHaveLength(1);
    expect(upstream.received[0]!.headers.expect).toBeUndefined();
  });

  it.each([
    ['/v1/chat/completions', chatBody('hop headers, windowed')],
    ['/v1/messages/count_tokens', JSON.stringify({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hop headers, passed through' }] })],
  ])('%s: no hop-by-hop header, nor one `Connection` names, is forwarded, and the request is served', async (path, body) => {
    const answer = await rawRequest(proxy.url, 'POST', path, body, {
      'content-type': 'application/json',
      'authorization': 'Bearer sk-test',
      // No content-length: the body goes chunked (`transfer-encoding: chunked`).
      'connection': 'keep-alive, x-hop-only',
      'x-hop-only': 'this hop',
      'keep-alive': 'timeout=5',
      'proxy-authorization': 'Basic cHJveHk6c2VjcmV0',
      'proxy-connection': 'keep-alive',
      'te': 'trailers',
      'trailer': 'x-checksum',
      'upgrade': 'h2c',
      'expect': '100-continue',
      'x-kept': 'yes',
    });
    expect(answer.status).toBe(200);
    expect(upstream.received).toHaveLength(1);
    const { headers } = upstream.received[0]!;
    for (const name of ['x-hop-only', 'keep-alive', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'upgrade', 'expect', 'transfer-encoding']) expect(headers[name], name).toBeUndefined();
    expect(headers.connection ?? '').not.toContain('x-hop-only');
    expect(headers.host).toBe(new URL(upstream.url).host);
    expect(headers['x-kept']).toBe('yes');
    expect(headers.authorization).toBe('Bearer sk-test');
  });
});

describe('the web view\'s token cookie never goes upstream', () => {
  it.each([
    ['/v1/chat/completions', 'POST'],
    ['/v1/models', 'GET'],
  ])('%s: other cookies pass as they are, and a Cookie of the token alone is dropped', async (path, method) => {
    const guarded = await startProxy({ store, port: 0, token: 'proxy-secret', upstreamOpenAi: upstream.url });
    try {
      const send = (cookie: string, content: string) => fetch(`${guarded.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', 'x-sliding-context-token': 'proxy-secret', cookie },
        ...(method === 'POST' ? { body: chatBody(content) } : {}),
      });
      expect((await send('theme=dark; sliding_context_token=proxy-secret; lang=en', 'cookies and the token')).status).toBe(200);
      expect((await send('sliding_context_token=proxy-secret', 'the token alone')).status).toBe(200);
      expect(upstream.received.map((received) => received.headers.cookie)).toEqual(['theme=dark; lang=en', undefined]);
    } finally {
      await guarded.close();
    }
  });
});

describe('the windowed endpoints take POST only', () => {
  it.each([
    ['/v1/chat/completions', 'PUT', 'openai'],
    ['/v1/responses', 'PATCH', 'openai'],
    ['/v1/messages', 'PUT', 'anthropic'],
    ['/v1/chat/completions', 'GET', 'openai'],
    ['/v1/messages', 'DELETE', 'anthropic'],
    ['/v1/responses', 'OPTIONS', 'openai'],
  ])('%s by %s is a 405 with `Allow: POST` in the provider\'s shape; nothing is stored or forwarded', async (path, method, api) => {
    const agents = (await store.listAgents()).length;
    const body = path === '/v1/messages' ? JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'put' }] }) : chatBody('put');
    const answer = await rawRequest(proxy.url, method, path, method === 'GET' || method === 'OPTIONS' ? undefined : body, { 'content-type': 'application/json', ...(method === 'GET' || method === 'OPTIONS' ? {} : { 'content-length': String(Buffer.byteLength(body)) }) });
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('POST');
    const message = expect.stringContaining(`${path} takes POST only; got ${method}`) as unknown;
    expect(answer.body).toEqual(api === 'anthropic'
      ? { type: 'error', error: { type: 'invalid_request_error', message } }
      : { error: { message, type: 'invalid_request_error', param: null, code: 'method_not_allowed' } });
    await proxy.settled();
    expect(await store.listAgents()).toHaveLength(agents);
    expect(upstream.received).toEqual([]);
  });

  it('a passed-through endpoint keeps its method', async () => {
    const answer = await rawRequest(proxy.url, 'POST', '/v1/messages/count_tokens', JSON.stringify({ model: 'claude-sonnet-4-5', messages: [] }), { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' });
    expect(answer.status).toBe(200);
    expect((await rawRequest(proxy.url, 'GET', '/v1/models', undefined, {})).status).toBe(200);
    expect(upstream.received.map((received) => `${received.method} ${received.path}`)).toEqual(['POST /v1/messages/count_tokens', 'GET /v1/models']);
  });
});

describe('a browser\'s requests for the web view never go upstream', () => {
  it.each(['/', '/?token=x', '/index.html', '/api/agents', '/api/agents/a/history', '/assets/app.js', '/events', '/favicon.ico'])(
    'without the web view, GET %s is a 404 that says where the web view is',
    async (path) => {
      const answer = await rawRequest(proxy.url, 'GET', path, undefined, { cookie: 'theme=dark', accept: 'text/html' });
      expect(answer.status).toBe(404);
      expect(answer.headers['content-type']).toBe('application/json');
      expect(answer.body).toMatchObject({ error: { message: expect.stringContaining('served by the process that holds the store, or it is off') as unknown, code: 'not_found' } });
      expect(upstream.received).toEqual([]);
    },
  );

  it('with the web view, the page is served and a browser\'s other request (its icon) is a 404, not forwarded', async () => {
    const web = createWebHandler({ store });
    const viewing = await startProxy({ store, port: 0, upstreamOpenAi: upstream.url, web });
    try {
      expect((await rawRequest(viewing.url, 'GET', '/api/agents', undefined, {})).status).toBe(200);
      const icon = await rawRequest(viewing.url, 'GET', '/favicon.ico', undefined, {});
      expect(icon.status).toBe(404);
      expect(icon.body).toMatchObject({ error: { message: expect.stringContaining('no such page') as unknown } });
      expect(upstream.received).toEqual([]);
    } finally {
      await viewing.close();
      await web.close();
    }
  });
});
