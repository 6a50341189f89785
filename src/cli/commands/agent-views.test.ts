import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../_test-cli.js';
import { clipText } from '../render/format-exchange.js';
import { formatNumber } from '../render/format-number.js';

const directory = mkdtempSync(join(tmpdir(), 'sliding-context-agent-views-'));
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});
const store = ['--data-dir', join(directory, 'store')];

interface ExchangeJson {
  index: number;
  title: string;
  tools: string[];
  tokens: number;
  inWindow: boolean;
  pinned: boolean;
  summarized: boolean;
}
interface CutJson {
  previousExchange: number | null;
  exchange: number | null;
  moved: boolean;
  reason: string;
  tokensAtPreviousCut: number;
  lowWaterTokens: number | null;
  stablePrefixEnd: { message: number | null; exchange: number | null; tokens: number };
}
interface ViewJson {
  cut: CutJson;
  budgetTokens: number;
  totalTokens: number;
  evictedExchanges: number;
  exchanges: ExchangeJson[];
  syntheticResults: { exchange: number }[];
  messages?: unknown[];
  format: string;
  summary?: { exchanges: { first: number; last: number } | null; messages: { first: { agentId: string; seq: number }; last: { agentId: string; seq: number } } } | null;
}

const json = async (...args: string[]) => JSON.parse((await runCli([...args, '--json', ...store])).stdout) as ViewJson;
const text = async (...args: string[]) => (await runCli([...args, ...store])).stdout;
const short = (agentId: string) => (agentId.split(':').at(-1) ?? '').slice(0, 8);

/** The rows of `window --agent`: number, title, tool names, tokens, state; and whether each is below the rule. */
function windowRows(output: string) {
  const lines = output.split('\n');
  const rule = lines.findIndex((line) => line.startsWith('── context ──'));
  return lines.flatMap((line, position) => {
    const match = /^\s*(\d+) {2}"(.*?)"\s+(.*?)\s+([\d,]+) {2}(in|out|pinned|summarized)$/.exec(line);
    if (!match) return [];
    const [, index, title, tools, tokens, state] = match as unknown as [string, string, string, string, string, string];
    return [{ index: Number(index), title, tools: tools.replace(/×\d+/g, ''), tokens: Number(tokens.replace(/,/g, '')), state, belowRule: rule !== -1 && position > rule }];
  });
}

/** The rows of `history`: number, title, tokens, summarized; and whether each is below the rule. */
function historyRows(output: string) {
  const lines = output.split('\n');
  const rule = lines.findIndex((line) => line.startsWith('── context ──'));
  return lines.flatMap((line, position) => {
    const match = /^\s*#(\d+) {2}"(.*?)"\s+.*?\s([\d,]+) tokens {2}(?:just now|pinned|.*?ago)( {2}summarized)?$/.exec(line);
    if (!match) return [];
    return [{ index: Number(match[1]), title: match[2], tokens: Number((match[3] ?? '').replace(/,/g, '')), summarized: match[4] !== undefined, belowRule: position > rule }];
  });
}

/** Checks that the human lines of the cut and the stable prefix tell what `--json` has. */
function expectCutTold(cutLine: string, prefixLine: string, view: ViewJson) {
  const { cut } = view;
  const numbers = (line: string) => [...line.matchAll(/#(\d+)/g)].map((match) => Number(match[1]));
  const expected = [cut.reason === 'over-budget' && cut.moved && cut.previousExchange !== null ? [cut.previousExchange] : [], cut.exchange === null ? [] : [cut.exchange]].flat();
  expect(numbers(cutLine)).toEqual(expected);
  const phrase = { 'fits': /^kept at /, 'over-budget': cut.moved ? /^moved from / : /^kept at /, 'policy': /^moved from /, 'first-plan': /no previous cut/, 'previous-cut-dropped': /dropped/, 'windowing-disabled': /disabled/ }[cut.reason];
  expect(cutLine).toMatch(phrase ?? /^$/);
  if (cut.reason === 'over-budget' || (cut.moved && cut.reason === 'first-plan')) expect(cutLine).toContain(`(${formatNumber(cut.tokensAtPreviousCut)})`);
  if (cut.moved && cut.lowWaterTokens !== null && view.totalTokens <= view.budgetTokens) expect(cutLine).toContain(`low-water mark ${formatNumber(cut.lowWaterTokens)}`);
  expect(prefixLine).toContain(`(${formatNumber(cut.stablePrefixEnd.tokens)} tokens)`);
  expect(numbers(prefixLine)).toEqual(cut.stablePrefixEnd.exchange === null ? [] : [cut.stablePrefixEnd.exchange]);
}

/** Checks that `window --agent` and `history`, human and JSON, tell the same exchanges and totals. */
async function expectViewsAgree(agentId: string) {
  const history = await json('history', agentId);
  const window = await json('window', '--agent', agentId);
  const key = ({ index, title, tools, tokens, inWindow, pinned, summarized }: ExchangeJson) => ({ index, title, tools, tokens, inWindow, pinned, summarized });
  expect(window.exchanges.map(key)).toEqual(history.exchanges.map(key));
  expect(window.evictedExchanges).toBe(history.evictedExchanges);
  expect(history.evictedExchanges).toBe(history.exchanges.filter((exchange) => !exchange.inWindow).length);
  expect(window.syntheticResults.map((result) => result.exchange)).toEqual(history.syntheticResults.map((result) => result.exchange));

  expect(window.cut).toEqual(history.cut);
  // The window's messages whole in both, not stand-ins drawn from the outline.
  expect(history.messages).toEqual(window.messages);
  expect(history.format).toBe(window.format);

  const windowText = await text('window', '--agent', agentId);
  const cutLine = /^Cut {8}(.*)$/m.exec(windowText)?.[1] ?? '';
  expectCutTold(cutLine, /^Prefix {5}(.*)$/m.exec(windowText)?.[1] ?? '', window);
  const rows = windowRows(windowText);
  expect(rows.map((row) => row.index)).toEqual(window.exchanges.map((exchange) => exchange.index));
  for (const [position, row] of rows.entries()) {
    const exchange = window.exchanges[position] as ExchangeJson;
    expect(row.title).toBe(clipText(exchange.title, 42));
    expect(exchange.tools.join(', ').startsWith(row.tools.replace(/…$/, ''))).toBe(true);
    expect(row.tokens).toBe(exchange.tokens);
    expect(row.state).toBe(exchange.summarized ? 'summarized' : exchange.pinned ? 'pinned' : exchange.inWindow ? 'in' : 'out');
    expect(row.belowRule).toBe(exchange.inWindow);
  }
  const inWindow = window.exchanges.filter((exchange) => exchange.inWindow).length;
  const summarized = window.exchanges.filter((exchange) => exchange.summarized).length;
  expect(windowText).toContain(
    `: ${formatNumber(inWindow)} of ${formatNumber(window.exchanges.length)} exchanges, ${formatNumber(window.evictedExchanges)} evicted${summarized > 0 ? ` (${formatNumber(summarized)} summarized)` : ''}\n`,
  );

  const historyText = await text('history', agentId);
  // history says the same at its rule, and names where the stable prefix ends below the list.
  expect(/^Cut (.*)$/m.exec(historyText)?.[1]).toBe(cutLine);
  expectCutTold(cutLine, /^Prefix (.*)$/m.exec(historyText)?.[1] ?? '', history);
  const listed = historyRows(historyText);
  expect(listed.map(({ index, tokens, summarized: folded, belowRule }) => ({ index, tokens, summarized: folded, inWindow: belowRule }))).toEqual(
    history.exchanges.map(({ index, tokens, summarized: folded, inWindow: within }) => ({ index, tokens, summarized: folded, inWindow: within })),
  );
  expect(listed.map((row) => row.title)).toEqual(history.exchanges.map((exchange) => clipText(exchange.title, 44)));
  const window_ = /^Window ([\d,]+) \/ ([\d,]+) tokens · ([\d,]+) exchanges? in, ([\d,]+) out · /m.exec(historyText);
  expect(window_?.slice(1).map((value) => Number(value.replace(/,/g, '')))).toEqual([history.totalTokens, history.budgetTokens, inWindow, history.evictedExchanges]);
  const summary = history.summary;
  if (summary) {
    const { first, last } = summary.messages;
    const range = first.agentId === last.agentId ? `${first.seq}–${last.seq}` : `${short(first.agentId)}:${first.seq}–${short(last.agentId)}:${last.seq}`;
    const exchanges = summary.exchanges && (summary.exchanges.first === summary.exchanges.last ? `exchange #${summary.exchanges.first}` : `exchanges #${summary.exchanges.first}–#${summary.exchanges.last}`);
    expect(historyText).toMatch(new RegExp(`^Summary \\(digest\\) of ${exchanges ?? 'earlier exchanges'}, messages ${range} · `, 'm'));
  }
  return { history, window };
}

describe('window --agent and history tell the truth', () => {
  it('after a demo, a compact, a fork and a compact of the fork: the same exchanges, numbers, titles, tools and totals, human and JSON', { timeout: 600_000 }, async () => {
    const demo = JSON.parse((await runCli(['demo', '--exchanges', '12', '--budget', '3000', '--json', ...store])).stdout) as { agentId: string; exchangesSummarized: number };
    const { agentId } = demo;
    expect(demo.exchangesSummarized).toBeGreaterThan(0);
    const afterDemo = await expectViewsAgree(agentId);
    expect(afterDemo.history.evictedExchanges).toBeGreaterThan(0);
    expect(afterDemo.window.exchanges.at(-1)?.index).toBe(11);

    await runCli(['import', '-', '--agent', agentId, ...store], { stdin: JSON.stringify([{ role: 'user', content: 'What is left to do?' }, { role: 'assistant', content: 'Nothing.' }]) });
    await runCli(['compact', agentId, ...store]);
    await expectViewsAgree(agentId);

    const { agentId: child } = JSON.parse((await runCli(['fork', agentId, '--json', ...store])).stdout) as { agentId: string };
    const turns = Array.from({ length: 3 }, (_, index) => [
      { role: 'user', content: `A question of the fork, number ${index}` },
      { role: 'assistant', content: `An answer of the fork, number ${index}` },
    ]).flat();
    await runCli(['import', '-', '--agent', child, ...store], { stdin: JSON.stringify(turns) });
    await runCli(['compact', child, ...store]);
    const forked = await expectViewsAgree(child);
    // The rolling summary now runs from the parent's messages into the child's.
    expect(forked.history.summary?.messages.first.agentId).toBe(agentId);
    expect(forked.history.summary?.messages.last.agentId).toBe(child);
    expect(await text('history', child)).toMatch(new RegExp(`messages ${short(agentId)}:1–${short(child)}:\\d+ · `));
  });
});

describe('small things the views say', () => {
  it('history and window --agent plan clear-tool-outputs alike, each output cleared by its own size', { timeout: 300_000 }, async () => {
    const flags = ['--data-dir', join(directory, 'cleared')];
    const { agentId } = JSON.parse((await runCli(['demo', '--exchanges', '20', '--budget', '0', '--json', ...flags])).stdout) as { agentId: string };
    type Cleared = ViewJson & { clearedToolOutputs: { toolCallId: string; tokens: number }[] };
    const policy = ['--policy', 'clear-tool-outputs', '--budget', '1500', ...flags];
    const history = JSON.parse((await runCli(['history', agentId, '--json', ...policy])).stdout) as Cleared;
    const window = JSON.parse((await runCli(['window', '--agent', agentId, '--json', ...policy])).stdout) as Cleared;
    expect(history.clearedToolOutputs.length).toBeGreaterThan(0);
    expect(history.clearedToolOutputs).toEqual(window.clearedToolOutputs);
    expect([history.totalTokens, history.messages]).toEqual([window.totalTokens, window.messages]);
    // The text view plans the same (it read no bodies before, and could not count the placeholders).
    expect((await runCli(['history', agentId, ...policy])).stdout).toContain(`Window ${formatNumber(window.totalTokens)} / 1,500 tokens`);
  });

  it('demo --budget 0 says nothing of a summary when none was made, and a count of one takes the singular', { timeout: 300_000 }, async () => {
    const { stdout } = await runCli(['demo', '--exchanges', '1', '--budget', '0']);
    expect(stdout).toMatch(/^Window {5}[\d,]+ tokens: 1 exchange$/m);
    expect(stdout).toMatch(/^Replayed {3}1 exchange \([\d,]+ messages\) turn by turn/m);
    expect(stdout).toMatch(/ · 1 exchange in, 0 out · /);
    expect(stdout).toMatch(/^Evicted {4}nothing: every exchange is in the window$/m);
    expect(stdout).toMatch(/not all exact \(some framing is estimated\)/);
    expect(stdout).not.toMatch(/summary|\b1 exchanges\b/);
    await expect(runCli(['demo', '--exchanges', '0'])).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringContaining('--exchanges') });
  });

  it('another provider named alone plans an agent with that provider\'s default model, not the agent\'s own', { timeout: 300_000 }, async () => {
    const flags = ['--data-dir', join(directory, 'provider')];
    const { agentId } = JSON.parse((await runCli(['import', '-', '--json', ...flags], { stdin: JSON.stringify([{ role: 'user', content: 'hi' }]) })).stdout) as { agentId: string };
    for (const command of [['window', '--agent', agentId], ['history', agentId]]) {
      const { stdout, stderr } = await runCli([...command, '--provider', 'anthropic', '--json', ...flags]);
      expect(JSON.parse(stdout)).toMatchObject({ provider: 'anthropic', model: 'claude-sonnet-4-6' });
      expect(stderr).not.toMatch(/Unknown model/);
      // The agent's own provider keeps its own model.
      expect(JSON.parse((await runCli([...command, '--provider', 'openai', '--json', ...flags])).stdout)).toMatchObject({ provider: 'openai', model: 'gpt-4o' });
    }
  });

  it('a title with a NUL or a lone surrogate reads the same in history and window --agent: U+FFFD for each', { timeout: 300_000 }, async () => {
    const flags = ['--data-dir', join(directory, 'odd-title')];
    const stdin = JSON.stringify([{ role: 'user', content: 'nul\u0000here and lone \ud800 sur' }, { role: 'assistant', content: 'ok' }]);
    const { agentId } = JSON.parse((await runCli(['import', '-', '--json', ...flags], { stdin })).stdout) as { agentId: string };
    const view = async (...args: string[]) => JSON.parse((await runCli([...args, '--json', ...flags])).stdout) as ViewJson;
    const title = 'nul\ufffdhere and lone \ufffd sur';
    expect((await view('history', agentId)).exchanges.map((exchange) => exchange.title)).toEqual([title]);
    const window = await view('window', '--agent', agentId);
    expect(window.exchanges.map((exchange) => exchange.title)).toEqual([title]);
    // The message itself is kept as it came.
    expect(window.messages?.[0]).toEqual({ role: 'user', content: 'nul\u0000here and lone \ud800 sur' });
  });

  it('an empty label and a <root>:<root> id are refused with clear errors, and nothing is stored', { timeout: 300_000 }, async () => {
    const flags = ['--data-dir', join(directory, 'refusals')];
    const { agentId } = JSON.parse((await runCli(['import', '-', '--json', ...flags], { stdin: JSON.stringify([{ role: 'user', content: 'hi' }]) })).stdout) as { agentId: string };
    await expect(runCli(['mark', agentId, '', ...flags])).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringContaining('mark: the label is empty') });
    await expect(runCli(['rewind', agentId, '  ', ...flags])).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringContaining('rewind: the label is empty') });
    await expect(runCli(['history', `${agentId}:${agentId}`, ...flags])).rejects.toMatchObject({ code: 'UNKNOWN_AGENT', message: expect.stringContaining(`the root agent is "${agentId}"`) });
    await expect(runCli(['mark', `${agentId}:${agentId}`, 'm', ...flags])).rejects.toMatchObject({ code: 'UNKNOWN_AGENT' });
    const history = JSON.parse((await runCli(['history', agentId, '--json', ...flags])).stdout) as { exchanges: unknown[] };
    expect(history.exchanges).toHaveLength(1);
  });
});

describe('clear keeps what the agent was made with', () => {
  const openAiBody = {
    model: 'gpt-4o',
    temperature: 0.3,
    max_tokens: 300,
    messages: [
      { role: 'system', content: 'You are the release manager. Answer in one line.' },
      { role: 'user', content: 'Is the build green?' },
      { role: 'assistant', content: 'Yes.' },
    ],
  };
  const anthropicBody = {
    model: 'claude-sonnet-4-5',
    max_tokens: 700,
    temperature: 0.1,
    system: [{ type: 'text', text: 'You are the release manager.', cache_control: { type: 'ephemeral' } }],
    messages: [
      { role: 'user', content: `Is the build red? The log:\n${'step passed in 2 s\n'.repeat(150)}` },
      { role: 'assistant', content: 'No.' },
      { role: 'user', content: 'Is the build green?' },
      { role: 'assistant', content: 'Yes.' },
    ],
  };

  it('an imported OpenAI system prompt survives a clear, as an Anthropic one does; the request options stay with the agent', { timeout: 300_000 }, async () => {
    const flags = ['--data-dir', join(directory, 'clear')];
    const imported = async (body: unknown, format: string) =>
      (JSON.parse((await runCli(['import', '-', '--format', format, '--json', ...flags], { stdin: JSON.stringify(body) })).stdout) as { agentId: string }).agentId;
    const body = async (agentId: string) => JSON.parse((await runCli(['window', '--agent', agentId, '--body', ...flags])).stdout) as Record<string, unknown>;
    const openAi = await imported(openAiBody, 'openai-chat');
    const anthropic = await imported(anthropicBody, 'anthropic');
    expect(await body(openAi)).toEqual(openAiBody);
    expect(await body(anthropic)).toEqual(anthropicBody);

    // A summary in force joins the body's own system blocks, which keep their cache_control.
    await runCli(['compact', anthropic, ...flags]);
    const compacted = await body(anthropic);
    expect(compacted).toMatchObject({ system: [anthropicBody.system[0], { type: 'text', text: expect.stringContaining('Earlier in this conversation') }], messages: anthropicBody.messages.slice(2) });

    const cleared = JSON.parse((await runCli(['clear', openAi, '--json', ...flags])).stdout) as { seq: number; keptSystemMessages: number };
    expect(cleared).toMatchObject({ seq: 4, keptSystemMessages: 1 });
    await runCli(['clear', anthropic, ...flags]);
    expect(await body(openAi)).toEqual({ ...openAiBody, messages: [openAiBody.messages[0]] });
    expect(await body(anthropic)).toMatchObject({ system: anthropicBody.system, temperature: 0.1, max_tokens: 700, messages: [] });

    // What follows the clear is planned after the kept prompt, from the stored counts.
    await runCli(['import', '-', '--agent', openAi, ...flags], { stdin: JSON.stringify([{ role: 'user', content: 'And now?' }, { role: 'assistant', content: 'Still green.' }]) });
    expect(await body(openAi)).toEqual({ ...openAiBody, messages: [openAiBody.messages[0], { role: 'user', content: 'And now?' }, { role: 'assistant', content: 'Still green.' }] });
    const history = JSON.parse((await runCli(['history', openAi, '--json', ...flags])).stdout) as { preambleMessages: number; exact: boolean; exchanges: unknown[] };
    expect(history).toMatchObject({ preambleMessages: 1, exact: true });
    expect(history.exchanges).toHaveLength(1);
  });
});
