import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { applyEventsTo } from '../../message/apply-events.js';
import { openAiChatClient } from '../../providers/openai/openai-chat-client.js';
import { HistoryStore } from '../../store/history-store.js';
import { type LoopbackAnswer, startLoopbackServer } from '../../testing/loopback-server.js';
import { openAiChatStream } from '../../testing/openai-chat-stream.js';
import { loadTokenCounter } from '../../tokens/load-token-counter.js';
import { ChatSession } from './chat-session.js';
import { chatToolDefinitions } from './chat-tools.js';

// What the model answers, one entry per request, in order.
let script: LoopbackAnswer[] = [];
const server = await startLoopbackServer(() => script.shift() ?? { status: 500, body: { error: { message: 'nothing scripted' } } });
const store = await HistoryStore.open({ memory: true });
const counter = await loadTokenCounter();
const work = mkdtempSync(join(tmpdir(), 'sliding-context-chat-session-'));
writeFileSync(join(work, 'notes.txt'), 'one\ntwo\nthree\n');
afterAll(async () => {
  await server.close();
  await store.close();
  rmSync(work, { recursive: true, force: true });
});
beforeEach(() => {
  script = [];
  server.received.length = 0;
});

const stream = (reply: Parameters<typeof openAiChatStream>[0]): LoopbackAnswer => ({ status: 200, sse: openAiChatStream(reply) });

/** A chat on the loopback server through the real OpenAI client, writing to a string. */
async function startChat() {
  const client = openAiChatClient(new OpenAI({ apiKey: 'test', baseURL: `${server.url}/v1`, maxRetries: 0 }));
  const screen = { text: '' };
  const session = await ChatSession.start({
    store,
    model: 'gpt-4o',
    conversation: { provider: 'openai', budgetTokens: 100_000, tools: chatToolDefinitions(false) },
    loadCounter: () => Promise.resolve(counter),
    client: () => Promise.resolve(client),
    tools: { cwd: work, allowCommands: false, confirm: () => Promise.resolve(false) },
    terminal: {
      write: (text) => {
        screen.text += text;
      },
      clear: () => undefined,
      confirm: () => Promise.resolve(false),
      style: { width: 100, color: false },
    },
  });
  const stored = async () => applyEventsTo(await store.history(session.agentId), (entry) => entry.message).map((entry) => entry.message);
  return { session, screen, stored };
}

describe('the chat session', () => {
  it('answers tool-call arguments that are not JSON with an error result, keeps their text, and goes on', async () => {
    const broken = '{"path": "notes.txt"';
    script = [
      stream({ toolCalls: [{ id: 'call_broken', name: 'read_file', arguments: broken }] }),
      stream({ toolCalls: [{ id: 'call_fixed', name: 'read_file', arguments: '{"path": "notes.txt"}' }] }),
      stream({ text: 'The notes hold three lines.' }),
    ];
    const { session, screen, stored } = await startChat();
    await session.handle('read the notes');
    expect(screen.text).toContain('  The notes hold three lines.\n');
    expect(screen.text).not.toMatch(/^error:/m);
    // The result of the fixed call counts the file's three lines, its final newline ending the last.
    expect(screen.text).toMatch(/⚙ read_file\(\{"path": "notes\.txt"\)\n {4}→ read_file: failed: the arguments were not valid JSON: [^\n]+\n {2}⚙ read_file\(\{"path":"notes\.txt"\}\)\n {4}→ read_file: 3 lines\n/);
    const messages = await stored();
    expect(messages[1]).toEqual({ role: 'assistant', content: [expect.objectContaining({ type: 'tool-call', toolCallId: 'call_broken', input: broken })] });
    expect(messages[2]).toEqual({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'call_broken', toolName: 'read_file', output: { type: 'error-text', value: expect.stringMatching(/^the arguments were not valid JSON: .+; send the call again with valid JSON$/) } }],
    });
    // The model is sent its call as it wrote it, with the answer to it.
    const second = server.received[1]?.body as { messages: { role: string; tool_calls?: { function: { arguments: string } }[]; content: unknown }[] };
    expect(second.messages.at(-2)?.tool_calls?.[0]?.function.arguments).toBe(broken);
    expect(second.messages.at(-1)).toMatchObject({ role: 'tool', content: expect.stringMatching(/^the arguments were not valid JSON/) });
  });

  it('a file with NUL bytes read in the chat does not end the turn: the model is told it is binary', async () => {
    writeFileSync(join(work, 'blob.bin'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x02]));
    script = [stream({ toolCalls: [{ id: 'call_blob', name: 'read_file', arguments: '{"path":"blob.bin"}' }] }), stream({ text: 'It is a binary file.' })];
    const { session, screen, stored } = await startChat();
    await session.handle('what is blob.bin?');
    expect(screen.text).toContain('→ read_file: failed: blob.bin is a binary file (it holds NUL bytes), 6 bytes');
    expect(screen.text).toContain('  It is a binary file.\n');
    expect(screen.text).not.toMatch(/^error:/m);
    expect((await stored()).map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('shows control characters from the model and from tools, never sends them to the terminal', async () => {
    const title = 'tidy \u001b]0;pwned\u0007 up \u001b[2J';
    script = [
      stream({ toolCalls: [{ id: 'call_odd', name: 'no\u001b[31mtool', arguments: '{}' }] }),
      stream({ text: `Done \u001b]0;pwned\u0007 and \u001b[2J\u009b1m.` }),
    ];
    const { session, screen } = await startChat();
    await session.handle(title);
    await session.redraw();
    // eslint-disable-next-line no-control-regex -- the point: no control character but the newline
    expect(screen.text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(screen.text).toContain('  Done \\x1b]0;pwned\\x07 and \\x1b[2J\\x9b1m.\n');
    expect(screen.text).toContain('› tidy \\x1b]0;pwned\\x07 up \\x1b[2J\n');
    expect(screen.text).toContain('⚙ no\\x1b[31mtool({})');
  });

  it('takes keys and tokens out of a provider error before it is shown', async () => {
    script = [{ status: 401, body: { error: { message: 'Incorrect API key provided: sk-ant-api03-Zx81QmB0aLp9. Sent Authorization: Bearer tok_4f9a8b7c6d5e and x-api-key: k3y-s3cr3t-value', type: 'invalid_request_error' } } }];
    const { session, screen } = await startChat();
    await session.handle('hello');
    expect(screen.text).toContain('error: 401 Incorrect API key provided: sk-ant-[redacted]. Sent Authorization: Bearer [redacted] and x-api-key: [redacted]\n');
    expect(screen.text).not.toMatch(/Zx81QmB0aLp9|tok_4f9a8b7c6d5e|k3y-s3cr3t-value/);
  });

  it('/model keeps the budget set by /budget', async () => {
    const { session, screen } = await startChat();
    await session.handle('/budget 5000');
    await session.handle('/model gpt-4o-mini');
    const headers = screen.text.split('\n').filter((line) => line.startsWith('sliding-context chat'));
    expect(headers.at(-1)).toContain('openai/gpt-4o-mini · budget 5,000 tokens');
    screen.text = '';
    await session.handle('/tokens');
    expect(screen.text).toContain('budget 5,000');
  });

  it('/tokens says when the request is over budget, and why', async () => {
    const { session, screen } = await startChat();
    await session.handle('hi');
    await session.handle('/budget 1');
    screen.text = '';
    await session.handle('/tokens');
    expect(screen.text).toMatch(/ {2}budget 1\n {2}Over budget by [\d,]+ tokens: the pinned preamble \(system prompt, tools and pinned messages\) takes [\d,]+ tokens, more than the budget of 1 on its own/);
  });

  it('/retry asks again about the last message, which stays stored once', async () => {
    script = [{ status: 500, body: { error: { message: 'overloaded' } } }, stream({ text: 'Second time lucky.' })];
    const { session, screen, stored } = await startChat();
    await session.handle('are you there?');
    expect(screen.text).toContain('error: 500 overloaded\n');
    await session.handle('/retry');
    expect(screen.text).toContain('  Second time lucky.\n');
    expect(await stored()).toEqual([{ role: 'user', content: 'are you there?' }, expect.objectContaining({ role: 'assistant' })]);
    // The model was asked the same question twice, each time once.
    const questions = server.received.map((request) => (request.body as { messages: { role: string }[] }).messages.filter((message) => message.role === 'user'));
    expect(questions).toEqual([[{ role: 'user', content: 'are you there?' }], [{ role: 'user', content: 'are you there?' }]]);
    screen.text = '';
    await session.handle('/retry');
    expect(screen.text).toBe('error: nothing to retry: the last message has its answer; type a new one\n');
  });

  it('keeps a reply cut short by Ctrl-C or a broken stream, marked as interrupted', async () => {
    // The role and the first half of "Once upon a time", then nothing more.
    const firstHalf = openAiChatStream({ text: 'Once upon a time' }).split('\n\n').slice(0, 2).map((event) => `${event}\n\n`).join('');
    script = [{ status: 200, sse: firstHalf, hold: true }, { status: 200, sse: `${firstHalf}data: {broken\n\n` }];
    const { session, screen, stored } = await startChat();
    const turn = session.handle('tell a story');
    await expect.poll(() => screen.text).toContain('  Once upo');
    expect(session.interrupt()).toBe(true);
    await turn;
    expect(screen.text).toContain('  Once upo\nerror: interrupted\n');
    await session.handle('again, please');
    expect(screen.text).toMatch(/ {2}Once upo\nerror: [^\n]+\n$/);
    const interrupted = { role: 'assistant', content: [{ type: 'text', text: 'Once upo' }], providerOptions: { 'sliding-context': { interrupted: true } } };
    expect(await stored()).toEqual([{ role: 'user', content: 'tell a story' }, interrupted, { role: 'user', content: 'again, please' }, interrupted]);
    screen.text = '';
    await session.redraw();
    expect(screen.text).toContain('› tell a story\n  Once upo\n  (interrupted)\n\n› again, please\n  Once upo\n  (interrupted)\n');
  });

  it('offers search_history and read_history and runs them itself: the model finds what left its sight', async () => {
    script = [
      stream({ text: 'Noted: pelican42.' }),
      stream({ toolCalls: [{ id: 'call_search', name: 'search_history', arguments: '{"query":"pelican42"}' }] }),
      stream({ toolCalls: [{ id: 'call_read', name: 'read_history', arguments: '{"message":1}' }] }),
      stream({ text: 'The word was pelican42.' }),
    ];
    const { session, screen, stored } = await startChat();
    await session.handle('remember pelican42');
    await session.handle('what was the word?');
    expect(screen.text).toContain('  The word was pelican42.\n');
    const first = server.received[0]?.body as { tools: { function: { name: string } }[] };
    expect(first.tools.map((tool) => tool.function.name)).toEqual(['read_file', 'list_files', 'search_text', 'search_history', 'read_history']);
    const messages = await stored();
    expect(messages[4]).toMatchObject({ role: 'tool', content: [{ toolName: 'search_history', output: { type: 'text', value: expect.stringContaining('- exchange #0 · message 1 · user: remember pelican42') } }] });
    expect(messages[6]).toMatchObject({ role: 'tool', content: [{ toolName: 'read_history', output: { type: 'text', value: 'message 1 · exchange #0 · user\nremember pelican42' } }] });
  });

  it('/help and /tokens stay in the scrollback, where they were typed, across a redraw', async () => {
    script = [stream({ text: 'Hello.' }), stream({ text: 'Bye.' })];
    const { session, screen } = await startChat();
    await session.handle('hi');
    await session.handle('/help');
    await session.handle('/tokens');
    await session.handle('thanks');
    screen.text = '';
    await session.handle('/budget 50000');
    expect(screen.text).toMatch(/› hi\n {2}Hello\.\n\n› \/help\nCommands:\n[^]*› \/tokens\n {2}system prompt +\d+\n[^]*\n\n› thanks\n {2}Bye\.\n/);
  });
});
