import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { ChatCompletionStream } from 'openai/lib/ChatCompletionStream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeWindow } from '../testing/judge-window.js';
import { applyEvents } from '../message/apply-events.js';
import type { ModelMessage } from '../message/message.js';
import { countBreakpoints } from '../providers/anthropic/anthropic-breakpoints.js';
import { HistoryStore } from '../store/history-store.js';
import { createServerDatabase } from '../testing/server-database.js';
import { loadTokenCounter } from '../tokens/load-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { type SeenRequest, startScriptedUpstream } from './_test-scripted-upstream.js';
import { type RunningProxy, startProxy } from './start-proxy.js';

const BUDGET = 3_000;
const OPENAI_MODEL = 'gpt-4o';
const ANTHROPIC_MODEL = 'claude-sonnet-4-5';
const OPENAI_KEY = 'sk-test-0123456789abcdefghijklmnop';
const ANTHROPIC_KEY = 'sk-ant-test-0123456789abcdefghij';
const SYSTEM = 'You are a careful coding agent.';
const readFileTool = { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } };

/** A tool output of about 300 tokens: two per turn make the window slide within a few turns. */
const fileText = (path: string) => `contents of ${path}: ${Array.from({ length: 150 }, (_, index) => `line${index}`).join(' ')}`;

const databaseUrl = process.env.DATABASE_URL;
const engines = [['PGlite', undefined], ...(databaseUrl ? [['PostgreSQL', databaseUrl] as const] : [])] as const;

describe.each(engines)('serve on %s, with the official SDKs', (_engine, serverUrl) => {
  let store: HistoryStore;
  let drop: (() => Promise<void>) | undefined;
  let counter: TokenCounter;
  let upstream: Awaited<ReturnType<typeof startScriptedUpstream>>;
  let proxy: RunningProxy;
  let openai: OpenAI;
  let anthropic: Anthropic;

  beforeAll(async () => {
    if (serverUrl) {
      const database = await createServerDatabase(serverUrl, 'serve');
      drop = () => database.drop();
      store = await HistoryStore.open({ databaseUrl: database.url });
    } else store = await HistoryStore.open({ memory: true });
    counter = await loadTokenCounter({ targets: [{ provider: 'openai', model: OPENAI_MODEL }, { provider: 'anthropic', model: ANTHROPIC_MODEL }] });
    upstream = await startScriptedUpstream(counter);
    proxy = await startProxy({ store, port: 0, budgetTokens: BUDGET, upstreamOpenAi: upstream.url, upstreamAnthropic: upstream.url });
    openai = new OpenAI({ apiKey: OPENAI_KEY, baseURL: `${proxy.url}/v1`, maxRetries: 0 });
    anthropic = new Anthropic({ apiKey: ANTHROPIC_KEY, baseURL: proxy.url, maxRetries: 0 });
  });
  afterAll(async () => {
    await proxy.close();
    await upstream.close();
    await store.close();
    await drop?.();
  });

  /** Every request the upstream got since `from`: no orphans, starts with the user, within budget. */
  const expectJudged = (from: number) => {
    const requests = upstream.seen.slice(from);
    expect(requests.length).toBeGreaterThan(0);
    for (const request of requests) expectWindowJudged(request, counter);
    return requests;
  };

  const visibleHistory = async (agentId: string) => {
    await proxy.settled();
    return applyEvents((await store.history(agentId)).map((row) => row.message));
  };

  it('Chat Completions: a multi-step loop of parallel tool calls slides the window and is stored whole, in one agent', async () => {
    const from = upstream.seen.length;
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'system', content: SYSTEM }];
    const agents = new Set<string>();
    let evicted = 0;
    for (let turn = 1; turn <= 5; turn++) {
      messages.push({ role: 'user', content: `chat turn ${turn}: read two files` });
      for (;;) {
        const { data, response } = await openai.chat.completions.create({ model: OPENAI_MODEL, messages, tools: [{ type: 'function', function: readFileTool }] }).withResponse();
        agents.add(response.headers.get('x-sliding-context-agent') ?? '');
        evicted = Number(response.headers.get('x-sliding-context-evicted-exchanges'));
        expect(Number(response.headers.get('x-sliding-context-window-tokens'))).toBeLessThanOrEqual(BUDGET);
        expect(Number(response.headers.get('x-sliding-context-overhead-ms'))).toBeGreaterThanOrEqual(0);
        const message = data.choices[0]!.message;
        messages.push(message);
        if (!message.tool_calls) break;
        expect(message.tool_calls).toHaveLength(2);
        for (const call of message.tool_calls) messages.push({ role: 'tool', tool_call_id: call.id, content: fileText(call.id) });
      }
    }
    expect([...agents]).toHaveLength(1);
    expect(evicted).toBeGreaterThan(0);
    const requests = expectJudged(from);
    expect(requests).toHaveLength(10);
    // The upstream got the window, not the whole history; the store holds every message.
    expect(requests.at(-1)!.messages.length).toBeLessThan(messages.length);
    const [agentId] = [...agents];
    expect(await visibleHistory(agentId!)).toHaveLength(messages.length);
    // The client's key went upstream untouched.
    expect(requests.every((request) => request.headers.authorization === `Bearer ${OPENAI_KEY}`)).toBe(true);
  });

  it('Chat Completions streamed: the answer reaches the client as it comes and is stored when it ends', async () => {
    const from = upstream.seen.length;
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'system', content: SYSTEM }];
    const agents = new Set<string>();
    for (let turn = 1; turn <= 4; turn++) {
      messages.push({ role: 'user', content: `streamed turn ${turn}: read two files` });
      for (;;) {
        const { data, response } = await openai.chat.completions.create({ model: OPENAI_MODEL, messages, tools: [{ type: 'function', function: readFileTool }], stream: true }).withResponse();
        const stream = ChatCompletionStream.fromReadableStream(data.toReadableStream());
        const chunks: string[] = [];
        stream.on('content', (delta) => chunks.push(delta));
        const message = (await stream.finalChatCompletion()).choices[0]!.message;
        agents.add(response.headers.get('x-sliding-context-agent') ?? '');
        messages.push({ role: 'assistant', content: message.content, ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}) });
        if (!message.tool_calls?.length) {
          expect(chunks.length).toBeGreaterThan(1);
          break;
        }
        for (const call of message.tool_calls) messages.push({ role: 'tool', tool_call_id: call.id, content: fileText(call.id) });
      }
    }
    expect([...agents]).toHaveLength(1);
    expectJudged(from);
    const stored = await visibleHistory([...agents][0]!);
    expect(stored).toHaveLength(messages.length);
    expect(stored.at(-1)).toEqual({ role: 'assistant', content: 'done: streamed turn 4: read two files' });
  });

  it('a stream the client drops midway is stored as far as it came, marked interrupted; the retry is answered', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'system', content: SYSTEM }, { role: 'user', content: 'dropped: read two files' }];
    const first = await openai.chat.completions.create({ model: OPENAI_MODEL, messages, tools: [{ type: 'function', function: readFileTool }] }).withResponse();
    const agentId = first.response.headers.get('x-sliding-context-agent')!;
    messages.push(first.data.choices[0]!.message);
    for (const call of first.data.choices[0]!.message.tool_calls ?? []) messages.push({ role: 'tool', tool_call_id: call.id, content: fileText(call.id) });
    upstream.hangNext();
    const from = upstream.seen.length;
    const controller = new AbortController();
    const stream = await openai.chat.completions.create({ model: OPENAI_MODEL, messages, tools: [{ type: 'function', function: readFileTool }], stream: true }, { signal: controller.signal });
    let received = '';
    try {
      for await (const chunk of stream) {
        received += chunk.choices[0]?.delta.content ?? '';
        if (received !== '') controller.abort();
      }
    } catch {
      // The SDK may end the loop or throw on the abort: either way the client went away.
    }
    expect(received).toBe('done: ');
    let last: ModelMessage | undefined;
    for (let attempt = 0; attempt < 100 && last?.role !== 'assistant'; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      last = (await visibleHistory(agentId)).at(-1);
    }
    expect(last).toEqual({ role: 'assistant', content: 'done: ', providerOptions: { 'sliding-context': { interrupted: true } } });
    // The client sends the same request again: it is answered, from a window that is still sound.
    const retried = await openai.chat.completions.create({ model: OPENAI_MODEL, messages, tools: [{ type: 'function', function: readFileTool }] });
    expect(retried.choices[0]!.message.content).toBe('done: dropped: read two files');
    expectJudged(from);
  });

  it('each request goes upstream with its own system prompt and tools: one that leaves them out has none, not the conversation\'s first ones', async () => {
    const from = upstream.seen.length;
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'preamble: hello' }];
    const first = await anthropic.messages.create({ model: ANTHROPIC_MODEL, max_tokens: 64, system: 'OLD SYSTEM', tools: [{ name: 'old_tool', input_schema: { type: 'object' } }], messages }).withResponse();
    const calls = first.data.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
    messages.push({ role: 'assistant', content: first.data.content }, { role: 'user', content: calls.map((call) => ({ type: 'tool_result' as const, tool_use_id: call.id, content: fileText(call.id) })) });
    const second = await anthropic.messages.create({ model: ANTHROPIC_MODEL, max_tokens: 64, system: 'NEW SYSTEM', tools: [{ name: 'new_tool', input_schema: { type: 'object' } }], messages }).withResponse();
    messages.push({ role: 'assistant', content: second.data.content }, { role: 'user', content: 'preamble: and now?' });
    const third = await anthropic.messages.create({ model: ANTHROPIC_MODEL, max_tokens: 64, messages }).withResponse();
    const seen = expectJudged(from);
    expect(seen.map((request) => [request.system, request.tools.map((tool) => tool.name)])).toEqual([['OLD SYSTEM', ['old_tool']], ['NEW SYSTEM', ['new_tool']], [undefined, []]]);
    expect(seen[2]!.body).not.toHaveProperty('system');
    expect(seen[2]!.body).not.toHaveProperty('tools');
    // The three turns are one conversation.
    expect(new Set([first, second, third].map((turn) => turn.response.headers.get('x-sliding-context-agent'))).size).toBe(1);
  });

  it('an upstream that dies midway through a stream fails the client\'s stream too, as without the proxy; what came is stored, marked interrupted', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'cut short: say something' }];
    upstream.cutNext();
    const from = upstream.seen.length;
    const { data: stream, response } = await openai.chat.completions.create({ model: OPENAI_MODEL, messages, stream: true }).withResponse();
    const agentId = response.headers.get('x-sliding-context-agent')!;
    let received = '';
    const failure = await (async () => {
      for await (const chunk of stream) received += chunk.choices[0]?.delta.content ?? '';
    })().then(() => undefined, (error: unknown) => error);
    expect(received).toBe('done: ');
    expect(failure).toBeInstanceOf(Error);
    await proxy.settled();
    expect((await visibleHistory(agentId)).at(-1)).toEqual({ role: 'assistant', content: 'done: ', providerOptions: { 'sliding-context': { interrupted: true } } });
    expectJudged(from);
  });

  it('an overflow answer from upstream is retried with a smaller window before the client sees anything', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'system', content: SYSTEM }];
    let from = 0;
    let headers: Headers | undefined;
    for (let turn = 1; turn <= 3; turn++) {
      messages.push({ role: 'user', content: `overflow turn ${turn}: read two files` });
      for (;;) {
        if (turn === 3 && messages.at(-1)?.role === 'tool') {
          upstream.overflowNext();
          from = upstream.seen.length;
        }
        const { data, response } = await openai.chat.completions.create({ model: OPENAI_MODEL, messages, tools: [{ type: 'function', function: readFileTool }] }).withResponse();
        headers = response.headers;
        const message = data.choices[0]!.message;
        messages.push(message);
        if (!message.tool_calls) break;
        for (const call of message.tool_calls) messages.push({ role: 'tool', tool_call_id: call.id, content: fileText(call.id) });
      }
    }
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', content: 'done: overflow turn 3: read two files' });
    const [refused, retried, ...rest] = upstream.seen.slice(from);
    expect([refused?.refused, retried?.refused, rest]).toEqual([true, false, []]);
    expect(retried!.tokens).toBeLessThanOrEqual(refused!.tokens - 300);
    expect(Number(headers?.get('x-sliding-context-evicted-exchanges'))).toBeGreaterThan(0);
    expectJudged(from);
  });

  it('Messages: a tool loop, whole and streamed, keeps the system blocks and the key, and stores every turn', async () => {
    const from = upstream.seen.length;
    const messages: Anthropic.MessageParam[] = [];
    const agents = new Set<string>();
    const system: Anthropic.TextBlockParam[] = [{ type: 'text', text: SYSTEM, cache_control: { type: 'ephemeral' } }];
    const tools: Anthropic.Tool[] = [{ name: 'read_file', description: 'Read a file', input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }];
    for (let turn = 1; turn <= 5; turn++) {
      messages.push({ role: 'user', content: `anthropic turn ${turn}: read two files` });
      for (;;) {
        const params = { model: ANTHROPIC_MODEL, max_tokens: 1024, system, tools, messages };
        let content: Anthropic.ContentBlock[];
        if (turn % 2 === 0) {
          const stream = anthropic.messages.stream(params);
          content = (await stream.finalMessage()).content;
          agents.add((await stream.withResponse()).response.headers.get('x-sliding-context-agent') ?? '');
        } else {
          const { data, response } = await anthropic.messages.create(params).withResponse();
          content = data.content;
          agents.add(response.headers.get('x-sliding-context-agent') ?? '');
        }
        messages.push({ role: 'assistant', content });
        const calls = content.filter((block) => block.type === 'tool_use');
        if (calls.length === 0) break;
        expect(calls).toHaveLength(2);
        messages.push({ role: 'user', content: calls.map((call) => ({ type: 'tool_result' as const, tool_use_id: call.id, content: fileText(call.id) })) });
      }
    }
    expect([...agents]).toHaveLength(1);
    const requests = expectJudged(from);
    expect(requests.every((request) => request.headers.authorization === `Bearer ${ANTHROPIC_KEY}`)).toBe(true);
    expect(requests.every((request) => JSON.stringify(request.body.system) === JSON.stringify(system))).toBe(true);
    expect(requests.at(-1)!.messages.length).toBeLessThan(messages.length);
    expect(await visibleHistory([...agents][0]!)).toHaveLength(messages.length);
  });

  it('Messages: "prompt is too long" is retried with a smaller window', async () => {
    const messages: Anthropic.MessageParam[] = [];
    const tools: Anthropic.Tool[] = [{ name: 'read_file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }];
    let from = 0;
    for (let turn = 1; turn <= 3; turn++) {
      messages.push({ role: 'user', content: `anthropic overflow ${turn}` });
      for (;;) {
        if (turn === 3 && Array.isArray(messages.at(-1)?.content)) {
          upstream.overflowNext();
          from = upstream.seen.length;
        }
        const data = await anthropic.messages.create({ model: ANTHROPIC_MODEL, max_tokens: 1024, tools, messages });
        messages.push({ role: 'assistant', content: data.content });
        const calls = data.content.filter((block) => block.type === 'tool_use');
        if (calls.length === 0) break;
        messages.push({ role: 'user', content: calls.map((call) => ({ type: 'tool_result' as const, tool_use_id: call.id, content: fileText(call.id) })) });
      }
    }
    const [refused, retried, ...rest] = upstream.seen.slice(from);
    expect([refused?.refused, retried?.refused, rest]).toEqual([true, false, []]);
    expect(retried!.tokens).toBeLessThan(refused!.tokens);
    expect(messages.at(-1)!.content).toEqual([{ type: 'text', text: 'done: anthropic overflow 3' }]);
    expectJudged(from);
  });

  it('Responses: a tool loop over input items, whole and streamed, with instructions kept', async () => {
    const from = upstream.seen.length;
    const input: OpenAI.Responses.ResponseInputItem[] = [];
    const agents = new Set<string>();
    const tools: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'read_file', description: 'Read a file', parameters: readFileTool.parameters, strict: false }];
    for (let turn = 1; turn <= 4; turn++) {
      input.push({ role: 'user', content: `responses turn ${turn}: read two files` });
      for (;;) {
        let output: OpenAI.Responses.ResponseOutputItem[];
        if (turn % 2 === 0) {
          const stream = openai.responses.stream({ model: OPENAI_MODEL, instructions: SYSTEM, input, tools });
          output = (await stream.finalResponse()).output;
        } else {
          const { data, response } = await openai.responses.create({ model: OPENAI_MODEL, instructions: SYSTEM, input, tools }).withResponse();
          output = data.output;
          agents.add(response.headers.get('x-sliding-context-agent') ?? '');
        }
        input.push(...(output as OpenAI.Responses.ResponseInputItem[]));
        const calls = output.filter((item) => item.type === 'function_call');
        if (calls.length === 0) break;
        for (const call of calls) input.push({ type: 'function_call_output', call_id: call.call_id, output: fileText(call.call_id) });
      }
    }
    expect([...agents]).toHaveLength(1);
    const requests = expectJudged(from);
    expect(requests.every((request) => request.body.instructions === SYSTEM)).toBe(true);
    expect(requests.at(-1)!.body.input).not.toHaveLength(input.length);
  });

  it('a request that diverges from the middle of a conversation forks it; a new prefix makes a new agent', async () => {
    const ask = async (messages: OpenAI.ChatCompletionMessageParam[]) =>
      (await openai.chat.completions.create({ model: OPENAI_MODEL, messages }).withResponse()).response.headers.get('x-sliding-context-agent')!;
    const first: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'fork me: first question' }, { role: 'assistant', content: 'first answer' }, { role: 'user', content: 'second question' }];
    const parent = await ask(first);
    const continued = await ask([...first, { role: 'assistant', content: 'done: second question' }, { role: 'user', content: 'third question' }]);
    expect(continued).toBe(parent);
    const forked = await ask([first[0]!, { role: 'assistant', content: 'an edited first answer' }, { role: 'user', content: 'another second question' }]);
    expect(forked).not.toBe(parent);
    expect(forked.startsWith(`${parent.split(':')[0]!}:`)).toBe(true);
    expect(await visibleHistory(parent)).toHaveLength(6);
    expect((await visibleHistory(forked)).map((message) => message.content)).toEqual(['fork me: first question', 'an edited first answer', 'another second question', 'done: another second question']);
    const fresh = await ask([{ role: 'user', content: 'something else entirely' }]);
    expect(fresh.split(':')[0]).not.toBe(parent.split(':')[0]);
  });

  it('x-sliding-context-agent pins the conversation by name (and names the agent) or by id', async () => {
    const pinned = { headers: { 'x-sliding-context-agent': 'nightly-refactor' } };
    const first = await openai.chat.completions.create({ model: OPENAI_MODEL, messages: [{ role: 'user', content: 'pinned: step one' }] }, pinned).withResponse();
    const agentId = first.response.headers.get('x-sliding-context-agent')!;
    const second = await openai.chat.completions.create({ model: OPENAI_MODEL, messages: [
      { role: 'user', content: 'pinned: step one' }, { role: 'assistant', content: 'done: pinned: step one' }, { role: 'user', content: 'step two' },
    ] }, pinned).withResponse();
    expect(second.response.headers.get('x-sliding-context-agent')).toBe(agentId);
    expect((await store.listAgents()).find((agent) => agent.agentId === agentId)?.name).toBe('nightly-refactor');
    const byId = await openai.chat.completions.create({ model: OPENAI_MODEL, messages: [
      { role: 'user', content: 'pinned: step one' }, { role: 'assistant', content: 'done: pinned: step one' }, { role: 'user', content: 'step two' },
      { role: 'assistant', content: 'done: step two' }, { role: 'user', content: 'step three' },
    ] }, { headers: { 'x-sliding-context-agent': agentId } }).withResponse();
    expect(byId.response.headers.get('x-sliding-context-agent')).toBe(agentId);
    expect(await visibleHistory(agentId)).toHaveLength(6);
  });

  it('an upstream failure reaches the client as the upstream gave it; the user\'s turn stays stored', async () => {
    upstream.failNext({ status: 503, body: { error: { message: 'The server is overloaded.', type: 'server_error', param: null, code: 'overloaded' } } });
    const error = await openai.chat.completions.create({ model: OPENAI_MODEL, messages: [{ role: 'user', content: 'failing: hello' }] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
    expect((error as InstanceType<typeof OpenAI.APIError>).message).toContain('The server is overloaded.');
    const agentId = (error as InstanceType<typeof OpenAI.APIError>).headers?.get('x-sliding-context-agent');
    expect(await visibleHistory(agentId!)).toEqual([{ role: 'user', content: 'failing: hello' }]);
  });

  it('what a request evicts is recorded after the client has its answer; with no answer, once the proxy settles', async () => {
    // A history over the budget: its first request evicts the oldest exchanges.
    const messages: OpenAI.ChatCompletionMessageParam[] = [];
    for (let turn = 1; turn <= 12; turn++) messages.push({ role: 'user', content: `evicting turn ${turn}: ${fileText(`src/evicting-${turn}.ts`)}` }, { role: 'assistant', content: `Read src/evicting-${turn}.ts.` });
    messages.push({ role: 'user', content: 'evicting: and now?' });
    upstream.failNext({ status: 503, body: { error: { message: 'The server is overloaded.', type: 'server_error', param: null, code: 'overloaded' } } });
    const error = await openai.chat.completions.create({ model: OPENAI_MODEL, messages }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    const failed = error as InstanceType<typeof OpenAI.APIError>;
    const agentId = failed.headers?.get('x-sliding-context-agent') ?? '';
    expect(Number(failed.headers?.get('x-sliding-context-evicted-exchanges'))).toBeGreaterThan(0);
    // No answer came: the record waits for the conversation's next write, or for the proxy to settle.
    expect(await store.ranges(agentId, { kind: 'evicted' })).toEqual([]);
    await proxy.settled();
    const [recorded] = await store.ranges(agentId, { kind: 'evicted' });
    expect(recorded?.first.seq).toBe(1);
    expect(JSON.stringify(recorded?.data.dropped)).toContain('src/evicting-1.ts');
    // A conversation opened again for other tools writes what its predecessor left waiting.
    const reopened = messages.map((message) => (message.role === 'user' && typeof message.content === 'string' ? { ...message, content: message.content.replace('evicting', 'reopened') } : message));
    upstream.failNext({ status: 503, body: { error: { message: 'The server is overloaded.', type: 'server_error', param: null, code: 'overloaded' } } });
    const second = await openai.chat.completions.create({ model: OPENAI_MODEL, messages: reopened }).catch((caught: unknown) => caught);
    const secondAgent = (second as InstanceType<typeof OpenAI.APIError>).headers?.get('x-sliding-context-agent') ?? '';
    expect(secondAgent).not.toBe(agentId);
    reopened.push({ role: 'user', content: 'reopened: read it again' });
    const { response } = await openai.chat.completions.create({ model: OPENAI_MODEL, messages: reopened, tools: [{ type: 'function', function: readFileTool }] }).withResponse();
    expect(response.headers.get('x-sliding-context-agent')).toBe(secondAgent);
    await proxy.settled();
    expect((await store.ranges(secondAgent, { kind: 'evicted' }))[0]?.first.seq).toBe(1);
  });

  it('a Responses request on a conversation the upstream keeps passes through as it came; a string input is windowed', async () => {
    const plain = await openai.responses.create({ model: OPENAI_MODEL, input: 'responses: a plain string input' }).withResponse();
    expect(plain.response.headers.get('x-sliding-context-agent')).toBeTruthy();
    expect(plain.data.output_text).toBe('done: responses: a plain string input');
    const before = (await store.listAgents()).length;
    const body = { model: OPENAI_MODEL, previous_response_id: 'resp_1', input: [{ type: 'function_call_output' as const, call_id: 'call_elsewhere', output: 'ok' }] };
    const continued = await openai.responses.create(body).withResponse();
    expect(continued.response.headers.get('x-sliding-context-agent')).toBeNull();
    expect(upstream.received.at(-1)!.body).toEqual(body);
    expect((await store.listAgents()).length).toBe(before);
  });

  it('Messages through the beta path (?beta=true, as Claude Code sends) are windowed, the query kept', async () => {
    const response = await fetch(`${proxy.url}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': ANTHROPIC_KEY, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: ANTHROPIC_MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'beta: hello' }] }),
    });
    expect(((await response.json()) as { content: unknown }).content).toEqual([{ type: 'text', text: 'done: beta: hello' }]);
    expect(response.headers.get('x-sliding-context-agent')).toBeTruthy();
    expect(upstream.received.at(-1)!.path).toBe('/v1/messages?beta=true');
  });

  it('provider-only fields reach the upstream: thinking signatures, reasoning items, cache_control within the breakpoint cap', async () => {
    const thinking = { type: 'thinking' as const, thinking: 'The user wants a file read.', signature: 'sig-EqQBCkYIBxgCKkA' };
    const messages: Anthropic.MessageParam[] = [
      { role: 'user', content: [{ type: 'text', text: 'signed: read a file', cache_control: { type: 'ephemeral' } }] },
      { role: 'assistant', content: [thinking, { type: 'tool_use', id: 'toolu_signed', name: 'read_file', input: { path: 'a.txt' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_signed', content: 'A' }] },
    ];
    const tools: Anthropic.Tool[] = [{ name: 'read_file', input_schema: { type: 'object', properties: { path: { type: 'string' } } }, cache_control: { type: 'ephemeral' } }];
    const system: Anthropic.TextBlockParam[] = [{ type: 'text', text: SYSTEM, cache_control: { type: 'ephemeral' } }];
    await anthropic.messages.create({ model: ANTHROPIC_MODEL, max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 }, system, tools, messages });
    const sent = upstream.received.at(-1)!.body as Anthropic.MessageCreateParamsNonStreaming;
    expect(sent.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
    expect((sent.messages[1]!.content as Anthropic.ContentBlockParam[])[0]).toEqual(thinking);
    expect(sent.tools?.[0]).toMatchObject({ cache_control: { type: 'ephemeral' } });
    expect(countBreakpoints(sent)).toBeLessThanOrEqual(4);

    const reasoning = { type: 'reasoning' as const, id: 'rs_signed', summary: [], encrypted_content: 'gAAAAABencrypted' };
    await openai.responses.create({ model: OPENAI_MODEL, include: ['reasoning.encrypted_content'], store: false, input: [
      { role: 'user', content: 'reasoned: read a file' },
      reasoning,
      { type: 'function_call', call_id: 'call_reasoned', name: 'read_file', arguments: '{"path":"a.txt"}' },
      { type: 'function_call_output', call_id: 'call_reasoned', output: 'A' },
    ] });
    const input = upstream.received.at(-1)!.body as { input: unknown[]; include: unknown; store: unknown };
    expect(input.input).toContainEqual(reasoning);
    expect([input.include, input.store]).toEqual([['reasoning.encrypted_content'], false]);
  });

  it('/v1/models and /v1/messages/count_tokens pass through, with the key', async () => {
    const models = await openai.models.list();
    expect(models.data.map((model) => model.id)).toEqual(['gpt-4o']);
    const counted = await anthropic.messages.countTokens({ model: ANTHROPIC_MODEL, messages: [{ role: 'user', content: 'count me' }] });
    expect(counted.input_tokens).toBe(42);
    const passed = upstream.received.filter((request) => request.path === '/v1/models' || request.path.startsWith('/v1/messages/count_tokens'));
    expect(passed.map((request) => request.headers.authorization ?? request.headers['x-api-key'])).toEqual([`Bearer ${OPENAI_KEY}`, `Bearer ${ANTHROPIC_KEY}`]);
  });

  it('no stored row holds a client\'s API key', async () => {
    for (const agent of await store.listAgents()) {
      const rows = JSON.stringify([await store.history(agent.agentId), await store.agentMeta(agent.agentId)]);
      expect(rows).not.toContain(OPENAI_KEY);
      expect(rows).not.toContain(ANTHROPIC_KEY);
    }
  });
});

/** The benchmarks' judge on one upstream request. */
export function expectWindowJudged(request: SeenRequest, counter: TokenCounter) {
  const provider = request.format === 'anthropic' ? 'anthropic' : 'openai';
  const verdict = judgeWindow(request.messages as ModelMessage[], { counter, provider, model: String(request.body.model), system: request.system ?? '', tools: request.tools, budgetTokens: BUDGET });
  expect(verdict.orphans).toBe(0);
  expect(verdict.startsWithNonUser).toBe(false);
  expect(verdict.requestTokens).toBeLessThanOrEqual(BUDGET);
}
