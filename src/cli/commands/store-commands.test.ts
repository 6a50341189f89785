import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startLoopbackServer } from '../../testing/loopback-server.js';
import { savedViewsDirectory } from '../../store/saved-views.js';
import { runCli } from '../_test-cli.js';

const directory = mkdtempSync(join(tmpdir(), 'sliding-context-cli-store-'));
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});
const example = readFileSync(new URL('../../../examples/coding-agent-session.json', import.meta.url), 'utf8');
const anthropicFixture = readFileSync(new URL('../../providers/__fixtures__/anthropic/tool-use.json', import.meta.url), 'utf8');
// The PGlite store in a fresh directory; DATABASE_URL is left out so that the embedded default is used.
const store = (name: string) => ['--data-dir', join(directory, name)];

describe('the store commands', () => {
  it('import of a large conversation shows progress on a terminal, and history plans it from the stored exact counts', async () => {
    const flags = store('large');
    const messages = Array.from({ length: 1200 }, (_, index) => [
      { role: 'user', content: `question ${index}` },
      { role: 'assistant', content: `answer ${index}` },
    ]).flat();
    const { stdout, stderr } = await runCli(['import', '-', '--json', ...flags], { stdin: JSON.stringify(messages), stderrIsTerminal: true });
    expect(stderr).toMatch(/counting \[#+\] 2,400\/2,400\n/);
    expect(stderr).toMatch(/storing {2}\[#+\] 2,400\/2,400\n/);
    const { agentId } = JSON.parse(stdout) as { agentId: string };
    const quiet = await runCli(['import', '-', '--agent', agentId, ...flags], { stdin: JSON.stringify(messages.slice(0, 2)) });
    expect(quiet.stderr).not.toMatch(/counting|storing/);
    const history = JSON.parse((await runCli(['history', agentId, '--json', '--budget', '500', ...flags])).stdout) as { exact: boolean; method: string; exchanges: { inWindow: boolean }[] };
    expect(history).toMatchObject({ exact: true, method: 'o200k_base' });
    expect(history.exchanges.length).toBe(1201);
    expect(history.exchanges.filter((exchange) => exchange.inWindow).length).toBeGreaterThan(10);
  });

  it('import prints the agent id; agents lists it; history draws the rule and shows ages', async () => {
    const flags = store('a');
    const { stdout } = await runCli(['import', '-', '--json', ...flags], { stdin: example });
    const { agentId } = JSON.parse(stdout) as { agentId: string };
    const listed = JSON.parse((await runCli(['agents', '--json', ...flags])).stdout) as { agentId: string; parentId: string | null; messages: number; tokens: number; lastActivity: string }[];
    expect(listed).toEqual([{ agentId, parentId: null, messages: 530, tokens: expect.any(Number), lastActivity: expect.any(String), name: null, forkSeq: null, inheritedMessages: 0, inheritedTokens: 0, title: expect.stringContaining('task-tracker'), provider: 'openai', model: expect.any(String) }]);
    expect(listed[0]?.tokens).toBeGreaterThan(50_000);
    const history = (await runCli(['history', agentId, '--budget', '20000', ...flags])).stdout;
    const lines = history.split('\n');
    const rule = lines.findIndex((line) => line.startsWith('── context ──'));
    expect(lines.slice(0, rule).some((line) => line.includes('"We are building the task-tracker service'))).toBe(true);
    expect(lines.slice(rule).some((line) => /#59 /.test(line))).toBe(true);
    expect(history).toMatch(/just now/);
  });

  it('history --json has the window report fields plus createdAt for each exchange; window --agent matches it', async () => {
    const flags = store('b');
    const { agentId } = JSON.parse((await runCli(['import', '-', '--json', ...flags], { stdin: example })).stdout) as { agentId: string };
    const history = JSON.parse((await runCli(['history', agentId, '--json', '--budget', '15000', ...flags])).stdout) as { totalTokens: number; pinnedTokens: number; cutoffMessage: number; exchanges: { tokens: number; inWindow: boolean; createdAt: string; title: string }[] };
    expect(history.exchanges[0]).toMatchObject({ createdAt: expect.any(String), title: expect.stringContaining('task-tracker') });
    expect(history.totalTokens).toBe(history.pinnedTokens + history.exchanges.filter((e) => e.inWindow).reduce((sum, e) => sum + e.tokens, 0));
    const window = JSON.parse((await runCli(['window', '--agent', agentId, '--json', '--budget', '15000', ...flags])).stdout) as { totalTokens: number; cutoffMessage: number };
    expect(window).toMatchObject({ totalTokens: history.totalTokens, cutoffMessage: history.cutoffMessage });
  });

  it('compact shows the digest first: --dry-run changes nothing; then history and window --agent send the summary and agree', async () => {
    const flags = store('compact');
    const { agentId } = JSON.parse((await runCli(['import', '-', '--json', ...flags], { stdin: example })).stdout) as { agentId: string };
    const before = (await runCli(['history', agentId, '--json', ...flags])).stdout;
    const preview = JSON.parse((await runCli(['compact', agentId, '--dry-run', '--json', ...flags])).stdout) as { summary: string; coveredExchanges: number; tokensBefore: number; tokensAfter: number; fallback: null };
    expect(preview).toMatchObject({ summary: expect.stringContaining('Earlier in this conversation'), coveredExchanges: 59, fallback: null });
    expect(preview.tokensAfter).toBeLessThan(preview.tokensBefore);
    // The config file's condense.maxSummaryShare caps the digest.
    const config = { 'sliding-context.config.json': JSON.stringify({ condense: { maxSummaryShare: 0.01 } }) };
    const capped = JSON.parse((await runCli(['compact', agentId, '--dry-run', '--json', ...flags], { files: config })).stdout) as { summary: string };
    expect(capped.summary.length).toBeLessThan(preview.summary.length / 2);
    expect((await runCli(['history', agentId, '--json', ...flags])).stdout).toBe(before);
    const done = await runCli(['compact', agentId, ...flags]);
    expect(done.stdout).toContain('The summary now covers 59 exchanges');
    const history = JSON.parse((await runCli(['history', agentId, '--json', ...flags])).stdout) as { totalTokens: number; exchanges: { inWindow: boolean; summarized: boolean }[]; summary: unknown };
    expect(history.exchanges.filter((exchange) => exchange.summarized)).toHaveLength(59);
    expect(history.summary).toMatchObject({ summarizer: 'digest', coveredExchanges: 59, exchanges: { first: 0, last: 58 }, messages: { first: { seq: 1 } }, cost: { inputTokens: 0, outputTokens: 0 }, tokens: expect.any(Number) });
    const view = (await runCli(['history', agentId, ...flags])).stdout;
    expect(view).toMatch(/── context ──[^\n]*\nCut kept at exchange #59: the request fits \([\d,]+ <= budget [\d,]+\)\n\nSummary \(digest\) of exchanges #0–#58, messages 1–\d+ · [\d,]+ tokens · cost 0 in \/ 0 out tokens:\n {2}Earlier in this conversation/);
    expect(view).toMatch(/#58 .* summarized\n/);
    expect(history.exchanges.filter((exchange) => exchange.inWindow)).toHaveLength(1);
    const window = JSON.parse((await runCli(['window', '--agent', agentId, '--json', ...flags])).stdout) as { totalTokens: number; request: unknown };
    expect(window.totalTokens).toBe(history.totalTokens);
    expect(JSON.stringify(window.request)).toContain('Earlier in this conversation');
  });

  it('compact --summarizer llm asks the model behind --base-url, and names the missing key without one', async () => {
    const flags = store('compact-llm');
    const { agentId } = JSON.parse((await runCli(['import', '-', '--json', ...flags], { stdin: example })).stdout) as { agentId: string };
    await expect(runCli(['compact', agentId, '--summarizer', 'llm', ...flags])).rejects.toMatchObject({ code: 'MISSING_API_KEY', message: expect.stringContaining('OPENAI_API_KEY') });
    const recorded = readFileSync(new URL('../../providers/__fixtures__/summaries/openai-summary.json', import.meta.url), 'utf8');
    const server = await startLoopbackServer(() => JSON.parse(recorded) as { status: number; body: unknown });
    try {
      const args = ['compact', agentId, '--summarizer', 'llm', '--summarizer-model', 'local-model', '--base-url', `${server.url}/v1`, '--dry-run', '--json', ...flags];
      const result = JSON.parse((await runCli(args)).stdout) as { summary: string; fallback: null; coveredExchanges: number };
      expect(result).toMatchObject({ summary: expect.stringContaining('integer cents'), fallback: null, coveredExchanges: 59 });
      expect(server.received[0]).toMatchObject({ path: '/v1/chat/completions', body: { model: 'local-model' } });
    } finally {
      await server.close();
    }
  });

  it('BEHAVIOUR 13: an imported provider body keeps its model, tools and system prompt, and the cutoff is the one a file gives', async () => {
    const flags = store('c');
    const { agentId } = JSON.parse((await runCli(['import', '-', '--json', ...flags], { stdin: anthropicFixture })).stdout) as { agentId: string };
    const fromStore = JSON.parse((await runCli(['window', '--agent', agentId, '--json', '--budget', '900', ...flags])).stdout) as { provider: string; model: string; totalTokens: number; cutoffMessage: number | null };
    const fromFile = JSON.parse((await runCli(['window', '-', '--json', '--budget', '900'], { stdin: anthropicFixture })).stdout) as { totalTokens: number; cutoffMessage: number | null };
    expect(fromStore).toMatchObject({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
    expect(fromStore.cutoffMessage).toBe(fromFile.cutoffMessage);
    expect(fromStore.totalTokens).toBe(fromFile.totalTokens);
  });

  it('fork, mark, clear and rewind are events; a rewind to an unknown mark is refused and stores nothing', async () => {
    const flags = store('d');
    const { agentId } = JSON.parse((await runCli(['import', '-', '--json', ...flags], { stdin: JSON.stringify([{ role: 'user', content: 'first' }, { role: 'assistant', content: 'ok' }]) })).stdout) as { agentId: string };
    const { agentId: child } = JSON.parse((await runCli(['fork', agentId, '--json', ...flags])).stdout) as { agentId: string };
    expect(child.startsWith(`${agentId}:`)).toBe(true);
    await runCli(['mark', child, 'm', ...flags]);
    await runCli(['import', '-', '--agent', child, ...flags], { stdin: JSON.stringify([{ role: 'user', content: 'detour' }]) });
    expect(JSON.parse((await runCli(['rewind', child, 'm', '--json', ...flags])).stdout)).toMatchObject({ event: 'rewind', label: 'm', seq: 3 });
    await expect(runCli(['rewind', child, 'nope', ...flags])).rejects.toMatchObject({ code: 'UNKNOWN_MARK' });
    const afterRewind = JSON.parse((await runCli(['window', '--agent', child, '--json', ...flags])).stdout) as { exchanges: unknown[] };
    expect(afterRewind.exchanges).toHaveLength(1);
    await runCli(['clear', child, ...flags]);
    expect((JSON.parse((await runCli(['window', '--agent', child, '--json', ...flags])).stdout) as { exchanges: unknown[] }).exchanges).toHaveLength(0);
    expect((JSON.parse((await runCli(['window', '--agent', agentId, '--json', ...flags])).stdout) as { exchanges: unknown[] }).exchanges).toHaveLength(1);
  });

  it('mark confirms its label as marks shows it: on one line, controls visible, clipped to 60 characters', async () => {
    const flags = store('mark-label');
    const { agentId } = JSON.parse((await runCli(['import', '-', '--json', ...flags], { stdin: JSON.stringify([{ role: 'user', content: 'first' }, { role: 'assistant', content: 'ok' }]) })).stdout) as { agentId: string };
    expect((await runCli(['mark', agentId, 'lab\nel\u001b[31m', ...flags])).stdout).toBe(`mark "lab el\\x1b[31m" recorded for ${agentId} at seq 3\n`);
    const long = (await runCli(['mark', agentId, 'x'.repeat(5000), ...flags])).stdout;
    expect(long).toBe(`mark "${'x'.repeat(59)}…" recorded for ${agentId} at seq 4\n`);
  });

  it('a fork\'s own uuid, as the agents table shows it, is refused with the full id to pass', async () => {
    const flags = store('fork-id');
    const { agentId } = JSON.parse((await runCli(['import', '-', '--json', ...flags], { stdin: JSON.stringify([{ role: 'user', content: 'first' }, { role: 'assistant', content: 'ok' }]) })).stdout) as { agentId: string };
    const { agentId: child } = JSON.parse((await runCli(['fork', agentId, '--json', ...flags])).stdout) as { agentId: string };
    const own = child.split(':')[1] ?? '';
    expect((await runCli(['agents', ...flags])).stdout).toContain(`└─ ${own}`);
    for (const command of [['history', own], ['mark', own, 'm']]) {
      await expect(runCli([...command, ...flags])).rejects.toMatchObject({ code: 'UNKNOWN_AGENT', message: expect.stringContaining(`that is the fork ${child}`) });
    }
    // An id no agent has is refused as before.
    await expect(runCli(['history', '00000000-0000-4000-8000-000000000000', ...flags])).rejects.toMatchObject({ code: 'UNKNOWN_AGENT', message: 'No agent 00000000-0000-4000-8000-000000000000 in this store.' });
  });

  it('history is drawn from the outline saved beside the directory, the same as from the store, until a write drops it', async () => {
    const flags = store('saved');
    const views = savedViewsDirectory(join(directory, 'saved'));
    const { agentId } = JSON.parse((await runCli(['import', '-', '--json', ...flags], { stdin: example })).stdout) as { agentId: string };
    // The import saved the outline; with it and without it, history gives the same.
    const [file = ''] = readdirSync(views);
    const history = async (...extra: string[]) => (await runCli(['history', agentId, ...extra, ...flags])).stdout;
    const fromSaved = [await history('--json', '--budget', '20000'), await history('--json', '--model', 'claude-sonnet-4-5')];
    rmSync(views, { recursive: true });
    expect(await history('--json', '--budget', '20000')).toBe(fromSaved[0]);
    expect(await history('--json', '--model', 'claude-sonnet-4-5')).toBe(fromSaved[1]);
    // The store run saved it again; history reads it (a title changed in the file shows).
    const saved = JSON.parse(readFileSync(join(views, file), 'utf8')) as { messages: unknown[][] };
    const firstUser = saved.messages.find((row) => row[2] === 'user' && typeof row[8] === 'string') ?? [];
    firstUser[8] = 'Drawn from the saved outline';
    writeFileSync(join(views, file), JSON.stringify(saved));
    expect(await history()).toContain('"Drawn from the saved outline"');
    // A write drops it (even one that changes nothing the view shows), and the command that
    // wrote saves it afresh.
    await runCli(['mark', agentId, 'm', ...flags]);
    expect(readFileSync(join(views, file), 'utf8')).not.toContain('Drawn from the saved outline');
    expect(await history()).not.toContain('Drawn from the saved outline');
    await runCli(['import', '-', '--agent', agentId, ...flags], { stdin: JSON.stringify([{ role: 'user', content: 'A question after the save' }, { role: 'assistant', content: 'ok' }]) });
    expect(await history()).toContain('"A question after the save"');
    // A file that is not an outline is passed over.
    writeFileSync(join(views, file), '{"messages": "garbled"}');
    expect(await history('--json', '--budget', '20000')).toBe(await history('--json', '--budget', '20000'));
    expect(await history()).toContain('"A question after the save"');
  });

  it('an import with a broken conversation stores nothing, and creates no store where there was none', async () => {
    const flags = store('e');
    const broken = JSON.stringify([{ role: 'user', content: 'a' }, { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'x', toolName: 'f', output: { type: 'text', value: 'v' } }] }]);
    await expect(runCli(['import', '-', ...flags], { stdin: broken })).rejects.toMatchObject({ code: 'ORPHANED_TOOL_RESULT' });
    await expect(runCli(['agents', '--json', ...flags])).rejects.toMatchObject({ code: 'NO_STORE' });
    // Into a store that exists, the same: nothing stored.
    await runCli(['import', '-', ...flags], { stdin: JSON.stringify([{ role: 'user', content: 'a' }]) });
    await expect(runCli(['import', '-', ...flags], { stdin: broken })).rejects.toMatchObject({ code: 'ORPHANED_TOOL_RESULT' });
    expect(JSON.parse((await runCli(['agents', '--json', ...flags])).stdout)).toHaveLength(1);
  });

  it('history, window and compact show the control characters of stored titles, tool names and summaries, never send them; --json keeps them', async () => {
    const flags = store('controls');
    const title = 'tidy \u001b]0;pwned\u0007 up \u001b[2J';
    const conversation = [
      { role: 'user', content: title },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read\u001b[2Jfile', input: { path: 'a.ts' } }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read\u001b[2Jfile', output: { type: 'text', value: 'export const line = 1;\n'.repeat(300) } }] },
      { role: 'assistant', content: 'done \u009b2J' },
      { role: 'user', content: 'next' },
      { role: 'assistant', content: 'ok' },
    ];
    const { agentId } = JSON.parse((await runCli(['import', '-', '--json', ...flags], { stdin: JSON.stringify(conversation) })).stdout) as { agentId: string };
    // eslint-disable-next-line no-control-regex -- the point: no control character but the newline
    const raw = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
    const outputs = {
      history: (await runCli(['history', agentId, ...flags])).stdout,
      window: (await runCli(['window', '--agent', agentId, ...flags])).stdout,
      compact: (await runCli(['compact', agentId, '--dry-run', ...flags])).stdout,
    };
    for (const [command, output] of Object.entries(outputs)) expect({ command, raw: raw.exec(output)?.[0] }).toEqual({ command, raw: undefined });
    expect(outputs.history).toContain('"tidy \\x1b]0;pwned\\x07 up \\x1b[2J"');
    expect(outputs.history).toContain('read\\x1b[2Jfile');
    expect(outputs.window).toContain('"tidy \\x1b]0;pwned\\x07 up \\x1b[2J"');
    expect(outputs.compact).toContain('tidy \\x1b]0;pwned\\x07 up \\x1b[2J');
    const json = JSON.parse((await runCli(['history', agentId, '--json', ...flags])).stdout) as { exchanges: { title: string }[] };
    expect(json.exchanges[0]?.title).toBe(title);
  }, 120_000);

  it('a failed LLM summary warns on stderr, and its detail has the key the server echoed taken out', async () => {
    const flags = store('compact-secret');
    const key = 'sk-proj-Q7vX2mN9bL4kR8tY';
    const conversation = [
      { role: 'user', content: 'read the config' },
      { role: 'assistant', content: 'export const line = 1;\n'.repeat(300) },
      { role: 'user', content: 'next' },
      { role: 'assistant', content: 'ok' },
    ];
    const { agentId } = JSON.parse((await runCli(['import', '-', '--json', ...flags], { stdin: JSON.stringify(conversation) })).stdout) as { agentId: string };
    const server = await startLoopbackServer(({ path }) => ({
      status: 401,
      body: { error: { message: `Incorrect API key provided: ${key}; request ${path}?key=AIzaSyD4-secretGoogleKey0123456789 sent with Bearer ${key}`, type: 'invalid_request_error' } },
    }));
    try {
      const args = ['compact', agentId, '--summarizer', 'llm', '--summarizer-model', 'local-model', '--base-url', `${server.url}/v1`, '--dry-run', ...flags];
      const json = await runCli([...args, '--json'], { env: { OPENAI_API_KEY: key } });
      const result = JSON.parse(json.stdout) as { fallback: string; fallbackDetail: string };
      expect(result).toMatchObject({ fallback: 'error', fallbackDetail: expect.stringContaining('Incorrect API key provided: sk-proj-[redacted]') });
      expect(json.stderr).toMatch(/^warning: the summary failed \(error: 401 Incorrect API key provided: sk-proj-\[redacted\]; request \/v1\/chat\/completions\?key=\[redacted\] sent with Bearer \[redacted\]\); nothing was condensed, the window falls back to plain eviction and the history is unchanged\.\n$/);
      const human = await runCli(args, { env: { OPENAI_API_KEY: key } });
      expect(human.stdout).toContain('No summary (error: 401 Incorrect API key provided: sk-proj-[redacted];');
      for (const output of [json.stdout, json.stderr, human.stdout, human.stderr]) expect(output).not.toMatch(/Q7vX2mN9bL4kR8tY|secretGoogleKey/);
    } finally {
      await server.close();
    }
  }, 120_000);
});
