import { get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSlidingContextError } from '../errors/sliding-context-error.js';
import { HistoryStore } from '../store/history-store.js';
import { startWebServer, type WebServer } from './start-web-server.js';

let store: HistoryStore;
beforeAll(async () => {
  store = await HistoryStore.open({ memory: true });
  await store.createAgent({}, { name: 'guarded' });
});
afterAll(async () => {
  await store.close();
});

describe('the web view on a host other machines reach', () => {
  let server: WebServer;
  let base: string;
  beforeAll(async () => {
    // Bound on every address; reached here through the loopback one, the token is still asked for.
    server = await startWebServer({ store, port: 0, host: '0.0.0.0', token: 'open sesame', assetsDir: '/nonexistent' });
    base = `http://127.0.0.1:${server.port}`;
  });
  afterAll(async () => {
    await server.close();
  });

  it('refuses every path without the token: 401 and nothing else', async () => {
    for (const path of ['/', '/api/agents', '/events', '/assets/app.js', '/api/agents/00000000-0000-0000-0000-000000000000/history']) {
      const response = await fetch(`${base}${path}`);
      expect(response.status, path).toBe(401);
      expect(await response.text(), path).toBe('401 Unauthorized\n');
      expect(response.headers.get('set-cookie'), path).toBeNull();
    }
  });

  it('refuses a wrong token in the query, a header or the cookie', async () => {
    const wrong = [
      fetch(`${base}/?token=open`),
      fetch(`${base}/api/agents`, { headers: { authorization: 'Bearer open sesam' } }),
      fetch(`${base}/api/agents`, { headers: { 'x-sliding-context-token': 'open sesame!' } }),
      fetch(`${base}/api/agents`, { headers: { cookie: 'sliding_context_token=nope' } }),
    ];
    for (const response of await Promise.all(wrong)) expect(response.status).toBe(401);
  });

  it('lets the page in with ?token= and keeps it in an HttpOnly cookie; the API takes a header or the cookie', async () => {
    const page = await fetch(`${base}/?token=open%20sesame`);
    // Not built in this test: the page says so, past the token check.
    expect(page.status).toBe(500);
    const cookie = page.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^sliding_context_token=open%20sesame; HttpOnly; SameSite=Strict; Path=\/$/);
    const byCookie = await fetch(`${base}/api/agents`, { headers: { cookie: cookie.split(';')[0] ?? '' } });
    expect(byCookie.status).toBe(200);
    expect(((await byCookie.json()) as { name: string }[]).map((agent) => agent.name)).toEqual(['guarded']);
    expect((await fetch(`${base}/api/agents`, { headers: { authorization: 'Bearer open sesame' } })).status).toBe(200);
    expect((await fetch(`${base}/api/agents`, { headers: { 'x-sliding-context-token': 'open sesame' } })).status).toBe(200);
  });
});

describe('binding the web view', () => {
  it('refuses a host other than loopback without a token, before listening', async () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.10']) {
      const error: unknown = await startWebServer({ store, port: 0, host }).catch((failure: unknown) => failure);
      expect(isSlidingContextError(error, 'INVALID_OPTION'), host).toBe(true);
      expect(String(error)).toContain('--token');
    }
  });

  it('serves loopback without a token, and answers 404 for what it does not own', async () => {
    const server = await startWebServer({ store, port: 0 });
    try {
      expect(server.url).toBe(`http://127.0.0.1:${server.port}/`);
      expect((await fetch(`${server.url}api/agents`)).status).toBe(200);
      expect((await fetch(`${server.url}v1/messages`)).status).toBe(404);
      const unknown = await fetch(`${server.url}api/agents/00000000-0000-0000-0000-000000000000/history`);
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toMatchObject({ error: { code: 'UNKNOWN_AGENT' } });
    } finally {
      await server.close();
    }
  });

  it('on loopback without a token, refuses a request that names another host (DNS rebinding) or comes from another site\'s page', async () => {
    const server = await startWebServer({ store, port: 0 });
    // By node:http: fetch sets the Host header itself.
    const status = (headers: Record<string, string>) => new Promise<{ status: number; text: string }>((resolve, reject) => {
      get({ host: '127.0.0.1', port: server.port, path: '/api/agents', headers }, (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => {
          resolve({ status: response.statusCode ?? 0, text });
        });
      }).on('error', reject);
    });
    try {
      expect(await status({ host: 'attacker.example' })).toEqual({ status: 403, text: expect.stringContaining('names the host "attacker.example"') as unknown });
      expect(await status({ origin: 'https://evil.example' })).toEqual({ status: 403, text: expect.stringContaining('https://evil.example') as unknown });
      expect((await status({ host: `localhost:${String(server.port)}` })).status).toBe(200);
      expect((await status({ origin: `http://127.0.0.1:${String(server.port)}` })).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('the API\'s numbers: any the store does not hold is a 400 or 404 in JSON, never a 500', () => {
  let server: WebServer;
  let agentId: string;
  const read = async (path: string) => {
    const response = await fetch(`${server.url}api/agents/${path}`);
    return { status: response.status, body: (await response.json()) as { error?: { code: string; message: string }; messages?: unknown[] } };
  };
  beforeAll(async () => {
    agentId = await store.createAgent({}, { name: 'numbered' });
    await store.append(agentId, [{ role: 'user', content: 'one' }, { role: 'assistant', content: 'two' }]);
    server = await startWebServer({ store, port: 0, assetsDir: '/nonexistent' });
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers a message it holds, and 404 UNKNOWN_MESSAGE for a seq past the last, 0, or past what the store\'s column holds', async () => {
    expect(await read(`${agentId}/messages/2`)).toMatchObject({ status: 200, body: { seq: 2, message: { role: 'assistant', content: 'two' } } });
    for (const seq of ['0', '3', '2147483647', '2147483648', '99999999999999999999999', `1${'0'.repeat(400)}`]) {
      for (const query of ['', `?through=${seq}`]) {
        const answer = await read(`${agentId}/messages/${seq}${query}`);
        expect(answer, seq + query).toEqual({ status: 404, body: { error: { code: 'UNKNOWN_MESSAGE', message: expect.stringContaining('stored no message') as unknown } } });
        expect(answer.body.error?.message, seq).toContain('it stored messages 1 to 2');
      }
    }
  });

  it('answers 400 INVALID_OPTION for a seq or a through that is not a whole number, or a run out of bounds', async () => {
    for (const path of ['-1', '1.5', 'abc', '1e3', '', '1?through=2147483648', '1?through=99999999999999999999999', '1?through=1e0', '1?through=-1', '2?through=1', '1?through=501', '1?through=']) {
      const answer = await read(`${agentId}/messages/${path}`);
      expect(answer.status, path).toBe(400);
      expect(answer.body.error?.code, path).toBe('INVALID_OPTION');
    }
    expect(await read(`${agentId}/messages/1?through=500`)).toMatchObject({ status: 200, body: { messages: [{ seq: 1 }, { seq: 2 }] } });
  });

  it('names an unknown agent, or one not percent-encoded right, UNKNOWN_AGENT (404)', async () => {
    for (const agent of ['00000000-0000-0000-0000-000000000000', '%E0%A4', 'not-an-id']) {
      for (const path of ['/messages/1', '/messages/1?through=1', '/history']) {
        const answer = await read(`${agent}${path}`);
        expect(answer.status, agent + path).toBe(404);
        expect(answer.body.error?.code, agent + path).toBe('UNKNOWN_AGENT');
      }
    }
  });

  it('answers 400 for a timeline count or first out of bounds; a first past the rows is the last rows', async () => {
    for (const query of ['count=0', 'count=2001', 'count=99999999999999999999999', 'count=1e3', 'count=2&first=-1', 'count=2&first=1e3']) {
      const answer = await read(`${agentId}/timeline?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body.error?.code, query).toBe('INVALID_OPTION');
    }
    for (const first of ['2147483648', '99999999999999999999999']) {
      expect((await read(`${agentId}/timeline?count=2&first=${first}`)).status, first).toBe(200);
    }
  });
});
