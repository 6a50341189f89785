import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../_test-cli.js';

const fixture = (path: string) => readFileSync(new URL(`../../providers/__fixtures__/${path}`, import.meta.url), 'utf8');

describe('window and count on provider bodies', () => {
  it('detects the format, counts for the body\'s provider and model, and says so', async () => {
    const { stdout } = await runCli(['window', '-', '--budget', '100000'], { stdin: fixture('anthropic/tool-use.json') });
    expect(stdout).toMatch(/^sliding-context window · anthropic \(detected\) input · anthropic\/claude-sonnet-4-5 · budget 100,000 tokens/);
    const counted = await runCli(['count', '-', '--json'], { stdin: fixture('google/sdk-thoughts-and-image.json') });
    expect(JSON.parse(counted.stdout)).toMatchObject({ format: 'google', provider: 'google', model: 'gemini-2.5-pro', method: 'gemini estimate' });
  });

  it('without a model, counts for the provider\'s own default model, not another provider\'s', async () => {
    const google = await runCli(['count', '-', '--json'], { stdin: fixture('google/function-calling.json') });
    expect(JSON.parse(google.stdout)).toMatchObject({ provider: 'google', model: 'gemini-2.5-flash' });
    const { stdout, stderr } = await runCli(['window', '-', '--provider', 'anthropic'], { stdin: JSON.stringify([{ role: 'user', content: 'hi' }]) });
    expect(stdout).toContain('anthropic/claude-sonnet-4-6');
    expect(stderr).not.toContain('Unknown model');
  });

  it('--body prints the windowed request in the input\'s format, ready to send', async () => {
    const { stdout, stderr } = await runCli(['window', '-', '--budget', '1', '--body'], { stdin: fixture('openai-chat/parallel-tool-calls.json') });
    const body = JSON.parse(stdout) as { model: string; tool_choice: string; messages: { role: string; content: unknown }[]; tools: unknown[] };
    expect(body).toMatchObject({ model: 'gpt-4o', tool_choice: 'auto', tools: [{ type: 'function' }] });
    // Only the latest exchange fits a 1-token budget; the system message is pinned.
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: 'And which is warmest?' },
    ]);
    expect(stderr).toContain('format: openai-chat (detected)');
  });

  it('--json adds the request body, and the window of an Anthropic body keeps tool results with their calls', async () => {
    const { stdout } = await runCli(['window', '-', '--format', 'anthropic', '--json', '--budget', '300'], { stdin: fixture('anthropic/thinking-and-images.json') });
    const report = JSON.parse(stdout) as { format: string; request: { messages: { role: string; content: { type: string }[] | string }[]; thinking: unknown } };
    expect(report.format).toBe('anthropic');
    expect(report.request.thinking).toEqual({ type: 'enabled', budget_tokens: 10000 });
    expect(report.request.messages[0]?.role).toBe('user');
  });

  it('a neutral input keeps the neutral shape as its request', async () => {
    const { stdout } = await runCli(['window', '-', '--json'], { stdin: JSON.stringify({ system: 's', messages: [{ role: 'user', content: 'hi' }] }) });
    expect(JSON.parse(stdout)).toMatchObject({ format: 'neutral', request: { system: 's', messages: [{ role: 'user', content: 'hi' }] } });
  });

  it('without --repair, an unanswered call is reported as answered in the request, not as repaired', async () => {
    const unanswered = JSON.stringify([{ role: 'user', content: 'run it' }, { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'run', input: {} }] }]);
    const { stdout, stderr } = await runCli(['window', '-'], { stdin: unanswered });
    expect(stdout).toContain('Synthetic  1 unanswered tool call answered in the request with a synthetic "aborted" result (the input is unchanged)\n');
    expect(stdout).not.toMatch(/repaired/i);
    expect(stderr).toBe('');
  });

  it('--repair fixes pairing and reports every change; without it the same input is an error', async () => {
    const broken = JSON.stringify({
      model: 'gpt-4o',
      messages: [
        { role: 'user', content: 'run it' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'run', arguments: '{}' } }] },
        { role: 'user', content: 'stop' },
      ],
    });
    const { stdout, stderr } = await runCli(['window', '-', '--repair', '--json'], { stdin: broken });
    expect(stderr).toContain('repaired: messages[1].content[0]: answered the unanswered call "c1" with a synthetic "aborted" result');
    const report = JSON.parse(stdout) as { request: { messages: unknown[] } };
    expect(report.request.messages).toContainEqual({ role: 'tool', tool_call_id: 'c1', content: 'aborted' });
    const orphan = JSON.stringify([{ role: 'user', content: 'a' }, { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'x', toolName: 'f', output: { type: 'text', value: 'v' } }] }]);
    await expect(runCli(['window', '-'], { stdin: orphan })).rejects.toMatchObject({ code: 'ORPHANED_TOOL_RESULT' });
    const repaired = await runCli(['window', '-', '--repair', '--json'], { stdin: orphan });
    expect(repaired.stderr).toContain('dropped the orphaned tool result for "x"');
    // A call id used twice at once is no repair's to make: refused before any repair is reported.
    const reused = JSON.stringify([{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'a', toolName: 't', input: {} }, { type: 'tool-call', toolCallId: 'a', toolName: 't', input: {} }] }, { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'a', toolName: 't', output: { type: 'text', value: 'x' } }] }]);
    await expect(runCli(['window', '-', '--repair'], { stdin: reused })).rejects.toMatchObject({
      code: 'DUPLICATE_TOOL_CALL_ID',
      message: expect.stringMatching(/^messages\[1\]\.content\[1\]: .*; --repair leaves a reused tool call id alone .* Nothing was repaired\.$/),
    });
  });

  it('a GPT-4o trace that uses one call id for several calls, each answered before the next, windows as sent and needs no repair', async () => {
    const input = fixture('openai-chat/reused-tool-call-id.json');
    const { stdout } = await runCli(['window', '-', '--body', '--budget', '100000'], { stdin: input });
    expect(JSON.parse(stdout)).toEqual(JSON.parse(input));
    const repaired = await runCli(['window', '-', '--repair', '--body', '--budget', '100000'], { stdin: input });
    expect(repaired.stderr).not.toContain('repaired:');
    expect(JSON.parse(repaired.stdout)).toEqual(JSON.parse(input));
  });

  it('a call whose arguments are not JSON is kept with its output, and sent back as received', async () => {
    const input = fixture('openai-chat/invalid-arguments.json');
    const { stdout } = await runCli(['window', '-', '--body', '--repair', '--budget', '100000'], { stdin: input });
    expect(JSON.parse(stdout)).toEqual(JSON.parse(input));
  });
});

describe('window, count and import on the files people have', () => {
  const transcript = (name: string) => readFileSync(new URL(`../../sources/__fixtures__/${name}`, import.meta.url), 'utf8');
  const directory = mkdtempSync(join(tmpdir(), 'sliding-context-inputs-'));
  afterAll(() => {
    rmSync(directory, { recursive: true, force: true });
  });
  const chatArray = JSON.stringify((JSON.parse(fixture('openai-chat/parallel-tool-calls.json')) as { messages: unknown[] }).messages);

  it('reads a bare array of OpenAI Chat messages as OpenAI Chat, and a bare array of plain messages as before', async () => {
    const window = JSON.parse((await runCli(['window', '-', '--json', '--budget', '100000'], { stdin: chatArray })).stdout) as { format: string; messages: unknown[] };
    expect(window.format).toBe('openai-chat');
    expect(window.messages).toHaveLength(8);
    expect(JSON.parse((await runCli(['count', '-', '--json'], { stdin: chatArray })).stdout)).toMatchObject({ format: 'openai-chat', provider: 'openai' });
    const imported = await runCli(['import', '-', '--json', '--data-dir', join(directory, 'store')], { stdin: chatArray });
    expect(JSON.parse(imported.stdout)).toMatchObject({ format: 'openai-chat', detected: true, messages: 8 });
    const plain = JSON.stringify([{ role: 'user', content: 'hello world' }]);
    expect(JSON.parse((await runCli(['count', '-', '--json'], { stdin: plain })).stdout)).toMatchObject({ format: 'neutral', tokens: 9 });
  });

  it('accepts JSON and JSON lines that start with a byte order mark', async () => {
    const bom = '\uFEFF';
    const files = { 'body.json': bom + fixture('openai-chat/parallel-tool-calls.json'), 'session.jsonl': bom + transcript('claude-code-1.0-linear-session.jsonl') };
    expect(JSON.parse((await runCli(['count', 'body.json', '--json'], { files })).stdout)).toMatchObject({ format: 'openai-chat' });
    expect(JSON.parse((await runCli(['window', 'body.json', '--json'], { files })).stdout)).toMatchObject({ format: 'openai-chat' });
    const json = JSON.parse((await runCli(['import', 'body.json', '--json', '--data-dir', join(directory, 'store')], { files })).stdout) as { messages: number };
    expect(json.messages).toBe(8);
    // The first line is the session's title: read (a mark and seven messages), not reported broken.
    const lines = JSON.parse((await runCli(['import', 'session.jsonl', '--json', '--data-dir', join(directory, 'store')], { files })).stdout) as { brokenLines: unknown[]; messages: number };
    expect(lines).toMatchObject({ brokenLines: [], messages: 8 });
    expect(JSON.parse((await runCli(['count', '-', '--json'], { stdin: files['session.jsonl'] })).stdout)).toMatchObject({ format: 'anthropic' });
  });

  it('window and count read a Claude Code session and a Codex rollout as import does, and report broken lines', async () => {
    const files = { 'parallel.jsonl': transcript('claude-code-2.1-parallel-session.jsonl'), 'rollout.jsonl': transcript('codex-rollout.jsonl') };
    const window = await runCli(['window', 'parallel.jsonl', '--json', '--budget', '100000'], { files });
    const report = JSON.parse(window.stdout) as { format: string; provider: string; model: string; messages: unknown[] };
    expect(report).toMatchObject({ format: 'anthropic', transcript: 'claude-code', provider: 'anthropic', model: 'claude-sonnet-4-5-20250929' });
    expect(report.messages).toHaveLength(15);
    expect(JSON.stringify(report.messages)).not.toContain('aborted');
    const text = await runCli(['window', 'parallel.jsonl', '--budget', '100000'], { files });
    // The human report names the input as --json does: the wire format, then the transcript it came from.
    expect(text.stdout).toMatch(/^sliding-context window · anthropic \(claude-code transcript, detected\) input · anthropic\//);
    expect((await runCli(['window', 'parallel.jsonl', '--body'], { files })).stderr).toMatch(/^format: anthropic \(claude-code transcript, detected\)$/m);
    const given = await runCli(['count', 'parallel.jsonl', '--format', 'claude-code'], { files });
    expect(given.stdout).toMatch(/^sliding-context count · anthropic \(claude-code transcript\) input · /);
    const counted = await runCli(['count', 'rollout.jsonl', '--json'], { files });
    expect(JSON.parse(counted.stdout)).toMatchObject({ format: 'openai-responses', transcript: 'codex', provider: 'openai', model: 'gpt-5-codex' });
    expect((await runCli(['count', 'rollout.jsonl'], { files })).stdout).toMatch(/^sliding-context count · openai-responses \(codex transcript, detected\) input · /);
    expect(counted.stderr).toMatch(/^line 12: skipped, not valid JSON/m);
    expect(counted.stderr).toMatch(/^line 17: skipped, .*call_Lost/m);
    const viaStdin = await runCli(['count', '-', '--json'], { stdin: transcript('codex-rollout.jsonl') });
    expect(JSON.parse(viaStdin.stdout)).toMatchObject({ format: 'openai-responses' });
  });
});
