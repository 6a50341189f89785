import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../_test-cli.js';
import { formatNumber } from '../render/format-number.js';

const example = readFileSync(
  new URL('../../../examples/coding-agent-session.json', import.meta.url),
  'utf8',
);
const files = { 'session.json': example };

interface JsonReport {
  budgetTokens: number;
  totalTokens: number;
  pinnedTokens: number;
  overBudget: boolean;
  overByTokens: number;
  exact: boolean;
  method: string;
  provider: string;
  model: string;
  cutoffMessage: number | null;
  exchanges: {
    index: number;
    firstMessage: number;
    lastMessage: number;
    tokens: number;
    inWindow: boolean;
  }[];
  messages: { role: string }[];
  cut: {
    previousCutoff: number | null;
    previousExchange: number | null;
    cutoff: number | null;
    exchange: number | null;
    moved: boolean;
    reason: string;
    tokensAtPreviousCut: number;
    lowWaterTokens: number | null;
    stablePrefixEnd: { message: number | null; exchange: number | null; tokens: number };
  };
}

async function windowJson(args: string[], options: Parameters<typeof runCli>[1] = { files }) {
  const { stdout } = await runCli(['window', ...args, '--json'], options);
  return JSON.parse(stdout) as JsonReport;
}

describe('sliding-context window', () => {
  it('--json reports the plan with the documented fields, and they add up', async () => {
    const report = await windowJson(['session.json', '--budget', '24000']);
    expect(report).toMatchObject({
      budgetTokens: 24_000,
      overBudget: false,
      overByTokens: 0,
      exact: false,
      method: 'o200k_base',
      provider: 'openai',
      model: 'gpt-4o',
    });
    expect(report.exchanges.length).toBeGreaterThanOrEqual(40);
    const inWindow = report.exchanges.filter((exchange) => exchange.inWindow);
    expect(report.totalTokens).toBe(
      report.pinnedTokens + inWindow.reduce((sum, e) => sum + e.tokens, 0),
    );
    expect(report.totalTokens).toBeLessThanOrEqual(24_000);
    expect(report.cutoffMessage).toBe(inWindow[0]?.firstMessage);
    expect(report.messages[0]?.role).toBe('user');
    expect(Object.keys(report.exchanges[0] ?? {})).toEqual(
      expect.arrayContaining(['index', 'firstMessage', 'lastMessage', 'tokens', 'inWindow']),
    );
  });

  it('takes --provider, --model and --pin-first', async () => {
    const report = await windowJson([
      'session.json',
      '--budget',
      '20000',
      '--pin-first',
      '--provider',
      'anthropic',
      '--model',
      'claude-sonnet-4-5',
    ]);
    expect(report).toMatchObject({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
    expect(report.exchanges[0]?.inWindow).toBe(true);
    expect(report.exchanges[1]?.inWindow).toBe(false);
  });

  it('reads stdin for - and for no file, and takes the budget from SLIDING_CONTEXT_TOKENS', async () => {
    const fromDash = await windowJson(['-'], {
      stdin: example,
      env: { SLIDING_CONTEXT_TOKENS: '30000' },
    });
    expect(fromDash.budgetTokens).toBe(30_000);
    const fromNothing = await windowJson([], { stdin: example });
    expect(fromNothing.budgetTokens).toBe(100_000);
  });

  it('accepts a bare array of messages', async () => {
    const messages = JSON.stringify([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ]);
    const report = await windowJson(['-'], { stdin: messages });
    expect(report.exchanges).toHaveLength(1);
  });

  it.each([
    ['a first plan over budget, cut to the low-water mark', ['--budget', '24000'], 'first-plan', true],
    ['a first plan that fits', ['--budget', '200000'], 'first-plan', false],
    ['windowing disabled', ['--budget', '0'], 'windowing-disabled', false],
    ['the budget policy', ['--budget', '24000', '--policy', 'budget'], 'first-plan', true],
  ] as const)('says where the cut is and why, and where the stable prefix ends, as --json does: %s', async (_name, args, reason, moved) => {
    const { stdout } = await runCli(['window', 'session.json', ...args], { files });
    const { cut, ...report } = await windowJson(['session.json', ...args]);
    expect(cut).toMatchObject({ reason, moved, previousCutoff: null, previousExchange: null, cutoff: report.cutoffMessage });
    const cutLine = /^Cut {8}(.*)$/m.exec(stdout)?.[1] ?? '';
    const prefixLine = /^Prefix {5}(.*)$/m.exec(stdout)?.[1] ?? '';
    // The cut names the exchange the rule is drawn above.
    const lines = stdout.split('\n');
    const below = lines[lines.findIndex((line) => line.startsWith('── context ──')) + 2] ?? lines.find((line) => /^\s*0 {2}"/.test(line));
    expect(Number(/^\s*(\d+)/.exec(below ?? '')?.[1])).toBe(cut.exchange);
    expect(cutLine).toContain(`exchange #${cut.exchange}`);
    if (moved) {
      expect(cutLine).toContain(`would pass the budget 24,000 (${formatNumber(cut.tokensAtPreviousCut)})`);
      expect(cutLine).toContain(cut.lowWaterTokens === null ? `down to ${formatNumber(report.totalTokens)} <= budget 24,000` : `<= low-water mark ${formatNumber(cut.lowWaterTokens)}`);
      expect(cut.tokensAtPreviousCut).toBeGreaterThan(report.budgetTokens);
      expect(report.totalTokens).toBeLessThanOrEqual(cut.lowWaterTokens ?? report.budgetTokens);
    } else expect(cutLine).toMatch(reason === 'windowing-disabled' ? /windowing is disabled/ : /the request fits/);
    expect(cut.lowWaterTokens).toBe(args.join(' ').includes('--policy budget') || reason === 'windowing-disabled' ? null : Math.floor(report.budgetTokens * 0.9));
    const end = cut.stablePrefixEnd;
    expect(prefixLine).toContain(`(${formatNumber(end.tokens)} tokens)`);
    if (end.message === null) expect(prefixLine).toMatch(/system prompt and tools only/);
    else expect(prefixLine).toContain(`exchange #${end.exchange}, message ${formatNumber(end.message)}`);
    // Moved: only the pinned part is stable; kept: everything before the latest exchange.
    const latest = report.exchanges.at(-1);
    if (moved) expect(end).toEqual({ message: null, exchange: null, tokens: report.pinnedTokens });
    else expect(end).toEqual({ message: (latest?.firstMessage ?? 0) - 1, exchange: (latest?.index ?? 0) - 1, tokens: report.totalTokens - (latest?.tokens ?? 0) });
  });

  it('draws the context rule where the window begins, with out rows above and in rows below', async () => {
    const { stdout } = await runCli(['window', 'session.json', '--budget', '24000'], { files });
    const lines = stdout.split('\n');
    const rule = lines.findIndex((line) => line.startsWith('── context ──'));
    expect(rule).toBeGreaterThan(0);
    expect(lines[rule - 1]).toBe('');
    expect(lines[rule + 1]).toBe('');
    const rows = lines.filter((line) => / (in|out)$/.test(line));
    const above = lines.slice(0, rule).filter((line) => / (in|out)$/.test(line));
    expect(above.every((line) => line.endsWith(' out'))).toBe(true);
    expect(rows.slice(above.length).every((line) => line.endsWith(' in'))).toBe(true);
    expect(stdout).toMatch(
      /Window +[\d,]+ tokens in all \(budget 24,000\): \d+ of 60 exchanges, \d+ evicted/,
    );
  });
});

describe('sliding-context window, bad input', () => {
  const cases: [string, string[], Parameters<typeof runCli>[1], string, RegExp][] = [
    ['an unreadable file', ['missing.json'], {}, 'INPUT_UNREADABLE', /Cannot read missing\.json/],
    [
      'invalid JSON',
      ['-'],
      { stdin: '{"messages": [' },
      'INVALID_JSON',
      /stdin is not valid JSON/,
    ],
    [
      'an invalid message',
      ['-'],
      {
        stdin:
          '[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"tool-call","toolCallId":1,"toolName":"f","input":{}}]}]',
      },
      'INVALID_MESSAGE',
      /messages\[1\]\.content\[0\]\.toolCallId: expected string/,
    ],
    [
      'an orphaned tool result',
      ['-'],
      {
        stdin:
          '[{"role":"user","content":"a"},{"role":"tool","content":[{"type":"tool-result","toolCallId":"x","toolName":"f","output":{"type":"text","value":"v"}}]}]',
      },
      'ORPHANED_TOOL_RESULT',
      /messages\[1\]\.content\[0\]/,
    ],
    ['a negative budget', ['-', '--budget', '-5'], { stdin: '[]' }, 'BUDGET_INVALID', /--budget/],
    [
      'a fractional budget',
      ['-', '--budget', '1.5'],
      { stdin: '[]' },
      'BUDGET_INVALID',
      /--budget/,
    ],
    [
      'a non-numeric environment budget',
      ['-'],
      { stdin: '[]', env: { SLIDING_CONTEXT_TOKENS: 'lots' } },
      'BUDGET_INVALID',
      /SLIDING_CONTEXT_TOKENS/,
    ],
    [
      'an object without messages',
      ['-'],
      { stdin: '{"system":"x"}' },
      'UNKNOWN_FORMAT',
      /Cannot tell the format of the input/,
    ],
    ['an unknown --format', ['-', '--format', 'cohere'], { stdin: '[]' }, 'INVALID_OPTION', /--format must be auto or one of neutral, openai-chat/],
  ];
  it.each(cases)('rejects %s with a clear error', async (_name, args, options, code, message) => {
    await expect(runCli(['window', ...args], options)).rejects.toMatchObject({
      code,
      message: expect.stringMatching(message),
    });
  });

  it('--policy chooses the policy: the report names it, and lists the tool outputs clear-tool-outputs cleared', async () => {
    const output = (id: string) => ({ role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: 'read_file', output: { type: 'text', value: 'line of a large file\n'.repeat(400) } }] });
    const call = (id: string) => ({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'read_file', input: { path: `${id}.ts` } }] });
    const turn = JSON.stringify([{ role: 'user', content: 'Read the modules.' }, call('a'), output('a'), call('b'), output('b'), call('c'), output('c'), { role: 'assistant', content: 'Done.' }]);
    const { stdout } = await runCli(['window', 'turn.json', '--budget', '3000', '--policy', 'clear-tool-outputs'], { files: { 'turn.json': turn } });
    expect(stdout).toMatch(/^Policy {5}clear-tool-outputs$/m);
    expect(stdout).toMatch(/^Cleared {4}1 old tool output of the latest exchange \([\d,]+ tokens; calls and ids kept\): read_file a$/m);
    const json = JSON.parse((await runCli(['window', 'turn.json', '--budget', '3000', '--policy', 'clear-tool-outputs', '--json'], { files: { 'turn.json': turn } })).stdout) as { policy: string; clearedToolOutputs: { toolCallId: string; storedAs: string }[]; request: unknown };
    expect(json).toMatchObject({ policy: 'clear-tool-outputs', clearedToolOutputs: [{ toolCallId: 'a', storedAs: 'message 2' }] });
    expect(JSON.stringify(json.request)).toContain('[output cleared: ');
    const fraction = await runCli(['window', 'session.json', '--budget', '20000', '--policy', 'fraction'], { files });
    expect(fraction.stdout).toMatch(/^Policy {5}fraction$/m);
  });
});

describe('window of a conversation that does not start with a user message', () => {
  it('says "an" before "assistant" (a vowel sound) in the refusal', async () => {
    const files = { 's.json': JSON.stringify([{ role: 'assistant', content: 'hello' }, { role: 'user', content: 'hi' }]) };
    const refusal = await runCli(['window', 's.json'], { files }).then(() => 'ran', (caught: unknown) => String(caught));
    expect(refusal).toContain('messages[0].role: an "assistant" message comes before the first user message; only system messages may precede it');
  });
});
