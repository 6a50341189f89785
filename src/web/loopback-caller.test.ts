import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type RunningProxy } from '../serve/start-proxy.js';
import { HistoryStore } from '../store/history-store.js';
import { createWebHandler, type WebHandler } from './create-web-handler.js';
import { foreignCallerOf } from './loopback-caller.js';
import { startWebServer, type WebServer } from './start-web-server.js';

describe('foreignCallerOf', () => {
  it.each([
    ['no Origin (an SDK, curl, an agent CLI)', { host: '127.0.0.1:8787' }],
    ['no Host and no Origin', {}],
    ['the server\'s own page', { host: '127.0.0.1:8787', origin: 'http://127.0.0.1:8787' }],
    ['its own page under another loopback name', { host: '127.0.0.1:8787', origin: 'http://localhost:8787' }],
    ['its own page on [::1]', { host: '[::1]:8787', origin: 'http://[::1]:8787' }],
    ['its own page on the default port', { host: 'localhost', origin: 'http://localhost:80' }],
  ])('serves %s', (_case, headers) => {
    expect(foreignCallerOf(headers, undefined)).toBeUndefined();
  });

  it.each([
    ['a page of another local port (a dev server)', { host: '127.0.0.1:8787', origin: 'http://localhost:3000' }],
    ['a page of another local port by the same name', { host: 'localhost:8787', origin: 'http://localhost:3000' }],
    ['a page on the default port when the server is not on it', { host: 'localhost:8787', origin: 'http://localhost' }],
    ['an https page (the server serves http only)', { host: 'localhost:8787', origin: 'https://localhost:8787' }],
    ['a page elsewhere', { host: '127.0.0.1:8787', origin: 'https://evil.example' }],
    ['a page of an opaque origin', { host: '127.0.0.1:8787', origin: 'null' }],
    ['a page of another scheme', { host: '127.0.0.1:8787', origin: 'file://' }],
    ['an Origin without a Host to compare it with', { origin: 'http://127.0.0.1:8787' }],
    ['two Origins at once', { host: '127.0.0.1:8787', origin: 'http://127.0.0.1:8787, http://localhost:3000' }],
  ])('refuses %s, naming it', (_case, headers) => {
    expect(foreignCallerOf(headers, undefined)).toContain(`from a web page of "${headers.origin}"`);
    expect(foreignCallerOf(headers, '')).toContain('from a web page');
  });

  it('leaves every caller to the token when there is one', () => {
    expect(foreignCallerOf({ host: '127.0.0.1:8787', origin: 'http://localhost:3000' }, 'secret')).toBeUndefined();
  });
});

/** A request with exactly these headers (fetch would set Host and Origin itself): its status and body. */
function send(url: string, method: string, path: string, headers: Record<string, string>, body = ''): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const sent = httpRequest({ host: hostname, port, path, method, headers: { 'content-length': String(Buffer.byteLength(body)), ...headers } }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => {
        resolve({ status: response.statusCode ?? 0, text });
      });
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

describe('a page of another local port, over HTTP', () => {
  let store: HistoryStore;
  let web: WebServer;
  let mounted: WebHandler;
  let proxy: RunningProxy;
  beforeAll(async () => {
    store = await HistoryStore.open({ memory: true });
    web = await startWebServer({ store, port: 0, assetsDir: '/nonexistent' });
    mounted = createWebHandler({ store, assetsDir: '/nonexistent' });
    // Refused before any upstream is asked: none listens there.
    proxy = await startProxy({ store, port: 0, upstreamOpenAi: 'http://127.0.0.1:9', upstreamAnthropic: 'http://127.0.0.1:9', web: mounted });
  });
  afterAll(async () => {
    await proxy.close();
    await mounted.close();
    await web.close();
    await store.close();
  });

  it('cannot read the web view\'s API; the view\'s own page can', async () => {
    const own = `http://localhost:${String(web.port)}`;
    expect(await send(web.url, 'GET', '/api/agents', { host: `127.0.0.1:${String(web.port)}`, origin: 'http://localhost:3000' }))
      .toEqual({ status: 403, text: expect.stringContaining('from a web page of "http://localhost:3000"') as unknown });
    expect((await send(web.url, 'GET', '/api/agents', { host: `127.0.0.1:${String(web.port)}`, origin: own })).status).toBe(200);
  });

  it('cannot send a turn to the proxy with a simple request (no preflight), nor read the view it mounts', async () => {
    const host = `127.0.0.1:${new URL(proxy.url).port}`;
    const body = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'from a dev server page' }] });
    const turn = await send(proxy.url, 'POST', '/v1/chat/completions', { 'host': host, 'origin': 'http://localhost:3000', 'content-type': 'text/plain' }, body);
    expect(turn.status).toBe(403);
    expect(JSON.parse(turn.text)).toMatchObject({ error: { type: 'permission_error', code: 'forbidden' } });
    expect(await store.listAgents()).toEqual([]);
    expect((await send(proxy.url, 'GET', '/api/agents', { host, origin: 'http://localhost:3000' })).status).toBe(403);
    expect((await send(proxy.url, 'GET', '/api/agents', { host, origin: `http://${host}` })).status).toBe(200);
  });
});
