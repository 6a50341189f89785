import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../_test-cli.js';

const directory = mkdtempSync(join(tmpdir(), 'sliding-context-transcripts-'));
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});
const fixture = (name: string) => readFileSync(new URL(`../../sources/__fixtures__/${name}`, import.meta.url), 'utf8');
const files = {
  'session.jsonl': fixture('claude-code-session.jsonl'),
  'rollout.jsonl': fixture('codex-rollout.jsonl'),
  'parallel.jsonl': fixture('claude-code-2.1-parallel-session.jsonl'),
  'linear.jsonl': fixture('claude-code-1.0-linear-session.jsonl'),
};
const store = (name: string) => ['--data-dir', join(directory, name)];

interface ImportJson {
  agentId: string;
  format: string;
  detected: boolean;
  messages: number;
  brokenLines: { line: number; reason: string }[];
  skipped: Record<string, number>;
}

async function importFile(file: string, flags: string[], extra: string[] = []) {
  const { stdout, stderr } = await runCli(['import', file, '--json', ...flags, ...extra], { files });
  return { result: JSON.parse(stdout) as ImportJson, stderr };
}

/** What the model sees of an agent now: `window --agent --json`'s messages. */
async function windowOf(agentId: string, flags: string[]) {
  return JSON.parse((await runCli(['window', '--agent', agentId, '--json', '--budget', '0', ...flags])).stdout) as { format: string; provider: string; model: string; messages: { role: string; content: unknown }[] };
}

describe('import of agent transcripts', () => {
  it('reads a Claude Code session: the main thread only, blocks of one reply joined, broken lines reported by number, the rest stored', async () => {
    const flags = store('claude');
    const { result, stderr } = await importFile('session.jsonl', flags);
    expect(result).toMatchObject({ format: 'claude-code', detected: true, skipped: { 'side-chain': 2, 'abandoned branch': 1 } });
    expect(result.brokenLines.map((broken) => broken.line)).toEqual([13, 19]);
    expect(result.brokenLines[1]?.reason).toMatch(/no earlier tool_use has the id "toolu_99Lost"/);
    expect(stderr).toMatch(/^line 13: skipped, not valid JSON/m);
    // mark (title), user, assistant (thinking + text + call), result, call, error result, answer, clear, summary, reply, user, call, answer
    expect(result.messages).toBe(13);
    const agents = JSON.parse((await runCli(['agents', '--json', ...flags])).stdout) as { messages: number }[];
    expect(agents[0]?.messages).toBe(13);
    const window = await windowOf(result.agentId, flags);
    expect(window).toMatchObject({ format: 'anthropic', provider: 'anthropic', model: 'claude-sonnet-4-5-20250929' });
    // The compaction boundary is a clear: the model sees what followed it, the lost result answered as aborted.
    expect(window.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'tool', 'assistant']);
    expect(JSON.stringify(window.messages[0])).toContain('This session is being continued');
    expect(JSON.stringify(window.messages[4])).toContain('aborted');
    const history = JSON.parse((await runCli(['history', result.agentId, '--json', ...flags])).stdout) as { exchanges: { title: string }[] };
    expect(history.exchanges.map((exchange) => exchange.title)).toEqual([
      expect.stringContaining('This session is being continued'),
      'Thanks. Now run the linter.',
    ]);
  });

  it('reads a Claude Code 2.1 session whose parallel results point at their own call: one thread, every real result kept, only the edited prompt left out', async () => {
    const flags = store('parallel');
    const { result } = await importFile('parallel.jsonl', flags);
    expect(result.brokenLines).toEqual([]);
    // The prompt sent and then edited (and the reply it got) is the one branch; progress and snapshots are not conversation.
    expect(result.skipped).toEqual({ 'abandoned branch': 2, 'progress': 1, 'system notice': 1, 'other record': 1 });
    const window = await windowOf(result.agentId, flags);
    expect(window).toMatchObject({ provider: 'anthropic', model: 'claude-sonnet-4-5-20250929' });
    const text = JSON.stringify(window.messages);
    expect(text).not.toContain('aborted');
    const results = [...text.matchAll(/"type":"tool-result","toolCallId":"(\w+)"/g)].map((match) => match[1]);
    expect(results).toEqual(['toolu_01Kf3Read', 'toolu_01Kf4Grep', 'toolu_01Kf5Bash', 'toolu_01Lm6Edit', 'toolu_01Lm7Edit', 'toolu_01Mn8Bash', 'toolu_01No9Edit']);
    expect(text).toContain('4\\t  total: number;');
    expect(text).toContain('Tests  14 passed (14)');
    expect(text).not.toContain('API docs');
    expect(text).toContain('field table');
    // The three blocks of the first reply (reasoning, text, three calls) are one assistant message.
    const first = window.messages.findIndex((message) => message.role === 'assistant');
    expect(JSON.stringify(window.messages[first]).match(/tool-call/g)).toHaveLength(3);
    expect(window.messages.slice(first + 1, first + 4).map((message) => message.role)).toEqual(['user', 'user', 'user']);
  });

  it('reads a Claude Code 1.0 session, one linear chain, the same way', async () => {
    const flags = store('linear');
    const { result } = await importFile('linear.jsonl', flags);
    expect(result).toMatchObject({ format: 'claude-code', brokenLines: [], skipped: {} });
    const window = await windowOf(result.agentId, flags);
    expect(window.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'user', 'assistant', 'user', 'assistant']);
    expect(JSON.stringify(window.messages)).not.toContain('aborted');
  });

  it('reads a Codex rollout: Responses items, its own tool calls as function calls, the model from the turn context', async () => {
    const flags = store('codex');
    const { result, stderr } = await importFile('rollout.jsonl', flags);
    expect(result).toMatchObject({ format: 'codex', detected: true, skipped: { 'event (shown in the Codex UI, duplicated by the items)': 2 } });
    expect(result.brokenLines.map((broken) => broken.line)).toEqual([12, 17]);
    expect(stderr).toMatch(/^line 17: skipped, .*call_Lost/m);
    const window = await windowOf(result.agentId, flags);
    // Its requests are built as Codex sends them, in the Responses format, as history says too.
    expect(window).toMatchObject({ format: 'openai-responses', provider: 'openai', model: 'gpt-5-codex' });
    expect(JSON.parse((await runCli(['history', result.agentId, '--json', ...flags])).stdout)).toMatchObject({ format: 'openai-responses' });
    // After the compaction the model saw its summary (as a user message) and what followed.
    expect(window.messages.map((message) => message.role)).toEqual(['user', 'user', 'assistant']);
    expect(JSON.stringify(window.messages[0])).toContain('--verbose flag; it was added');
    const agents = JSON.parse((await runCli(['agents', '--json', ...flags])).stdout) as { messages: number }[];
    expect(agents[0]?.messages).toBe(result.messages);
    // Before it: the developer message is the preamble, and the shell and apply_patch calls are function calls with their outputs.
    const before = fixture('codex-rollout.jsonl').split('\n').slice(0, 14).join('\n');
    const { stdout } = await runCli(['import', '-', '--json', ...store('codex-before')], { stdin: before });
    const early = await windowOf((JSON.parse(stdout) as ImportJson).agentId, store('codex-before'));
    expect(early.messages.map((message) => message.role)).toEqual(['system', 'system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    const text = JSON.stringify(early.messages);
    expect(text).toContain('"toolName":"shell"');
    expect(text).toContain('"toolName":"apply_patch"');
    expect(text).toContain('Finding where flags are parsed');
  });

  it('titles a Codex agent with the first request the user typed, not the context Codex injects as user messages', async () => {
    const flags = store('codex-title');
    const injected = (text: string) => JSON.stringify({ type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } });
    const lines = fixture('codex-rollout.jsonl').split('\n');
    // AGENTS.md instructions before the environment, as newer Codex versions write them; another environment block mid-session.
    const rollout = [lines[0], lines[1], injected('# AGENTS.md instructions for /home/dev/tool\n\n<INSTRUCTIONS>\nRun the tests.\n</INSTRUCTIONS>'), ...lines.slice(2, 15), injected('<environment_context>\n  <cwd>/home/dev/tool/docs</cwd>\n</environment_context>'), ...lines.slice(15)].join('\n');
    const { stdout } = await runCli(['import', '-', '--json', ...flags], { stdin: rollout });
    const { agentId } = JSON.parse(stdout) as ImportJson;
    const agents = JSON.parse((await runCli(['agents', '--json', ...flags])).stdout) as { title: string | null }[];
    expect(agents[0]?.title).toBe('Add a --verbose flag to the CLI.');
    expect((await runCli(['agents', ...flags])).stdout).toContain('"Add a --verbose flag to the CLI."');
    const history = JSON.parse((await runCli(['history', agentId, '--all', '--json', ...flags])).stdout) as { timeline: { type: string; title?: string }[] };
    expect(history.timeline.filter((row) => row.type === 'exchange').map((row) => row.title)).toEqual(['Add a --verbose flag to the CLI.', 'The user asked for a --verbose flag; it was added in src/cli.ts next to --quiet.', 'Now document it in the README.']);
    // The blocks are still sent, as the user messages Codex sent them as (after the compaction, the one mid-session).
    const body = JSON.parse((await runCli(['export', agentId, '--format', 'openai-responses', ...flags])).stdout) as { input: { role?: string; content?: unknown }[] };
    const sent = body.input.filter((item) => JSON.stringify(item.content ?? '').includes('<environment_context>') || JSON.stringify(item.content ?? '').includes('AGENTS.md instructions'));
    expect(sent).toEqual([{ role: 'user', content: '<environment_context>\n  <cwd>/home/dev/tool/docs</cwd>\n</environment_context>' }]);
  });

  it('--strict imports nothing when a line is broken, and says which', async () => {
    const flags = store('strict');
    await expect(importFile('session.jsonl', flags, ['--strict'])).rejects.toMatchObject({ code: 'INVALID_TRANSCRIPT', message: expect.stringMatching(/session\.jsonl line 13: not valid JSON.*nothing was imported \(--strict\)/) });
    const clean = fixture('claude-code-session.jsonl').split('\n').filter((_, index) => index !== 12).join('\n');
    await expect(runCli(['import', '-', '--strict', '--format', 'claude-code', ...flags], { stdin: clean })).rejects.toMatchObject({ code: 'ORPHANED_TOOL_RESULT', message: expect.stringMatching(/^stdin line 18: messages\[\d+\]\.content\[0\]\.tool_use_id: no earlier tool_use/) });
    // Nothing was imported, so not even a store was made.
    await expect(runCli(['agents', '--json', ...flags])).rejects.toMatchObject({ code: 'NO_STORE' });
  });

  it('detects JSON lines without the .jsonl extension, and refuses JSON lines of another kind', async () => {
    const flags = store('detect');
    const { stdout } = await runCli(['import', '-', '--json', ...flags], { stdin: fixture('codex-rollout.jsonl') });
    expect(JSON.parse(stdout)).toMatchObject({ format: 'codex', detected: true });
    await expect(runCli(['import', '-', ...flags], { stdin: '{"a":1}\n{"b":2}\n' })).rejects.toMatchObject({ code: 'UNKNOWN_FORMAT', message: expect.stringContaining('neither a Claude Code session nor a Codex rollout') });
  });

  it('shows a progress bar while reading a large transcript on a terminal', async () => {
    const lines = fixture('claude-code-session.jsonl').split('\n').filter(Boolean);
    const turn = (index: number) => [
      JSON.stringify({ type: 'user', sessionId: 's', uuid: `u${index}`, parentUuid: index === 0 ? null : `a${index - 1}`, message: { role: 'user', content: `question ${index} ${'x'.repeat(2000)}` } }),
      JSON.stringify({ type: 'assistant', sessionId: 's', uuid: `a${index}`, parentUuid: `u${index}`, message: { id: `m${index}`, role: 'assistant', content: [{ type: 'text', text: 'answer' }] } }),
    ];
    const big = [lines[0], ...Array.from({ length: 2200 }, (_, index) => turn(index)).flat()].join('\n');
    const { stderr } = await runCli(['import', 'big.jsonl', ...store('big')], { files: { 'big.jsonl': big }, stderrIsTerminal: true });
    expect(stderr).toMatch(/reading {2}\[#+\] [\d,]+\/[\d,]+\n/);
    expect(stderr).toMatch(/imported 4,401 messages \(claude-code, detected\)/);
  });
});
