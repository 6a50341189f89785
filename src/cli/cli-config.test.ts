import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolveModel } from '../tokens/model-catalog.js';
import { runCli } from './_test-cli.js';
import { cliCondenseThreshold } from './cli-config.js';

const example = readFileSync(new URL('../../examples/coding-agent-session.json', import.meta.url), 'utf8');

/** `window --json` on the example session, with the given config files, env and flags. */
async function windowWith(files: Record<string, string>, env: Record<string, string> = {}, flags: string[] = []) {
  const { stdout } = await runCli(['window', 'session.json', '--json', ...flags], { files: { 'session.json': example, ...files }, env });
  return JSON.parse(stdout) as { budgetTokens: number; policy: string; model: string; exchanges: { inWindow: boolean }[] };
}

describe('CLI settings: sliding-context.config.json, then env vars, then flags', () => {
  const config = { 'sliding-context.config.json': JSON.stringify({ budget: 30_000, policy: { name: 'fraction', fraction: 0.25 }, pinFirst: true }) };

  it('takes the config file\'s settings when nothing else sets them', async () => {
    const plan = await windowWith(config);
    expect(plan).toMatchObject({ budgetTokens: 30_000, policy: 'fraction' });
    expect(plan.exchanges[0]?.inWindow).toBe(true);
  });

  it('lets env vars win over the file, and flags over both', async () => {
    expect(await windowWith(config, { SLIDING_CONTEXT_TOKENS: '20000', SLIDING_CONTEXT_POLICY: 'sequence' })).toMatchObject({ budgetTokens: 20_000, policy: 'sequence' });
    expect(await windowWith(config, { SLIDING_CONTEXT_TOKENS: '20000' }, ['--budget', '10000', '--policy', 'budget'])).toMatchObject({ budgetTokens: 10_000, policy: 'budget' });
  });

  it('reads the "slidingContext" key of package.json when there is no config file', async () => {
    const manifest = { 'package.json': JSON.stringify({ name: 'my-agent', slidingContext: { budget: 12_345 } }) };
    expect(await windowWith(manifest)).toMatchObject({ budgetTokens: 12_345, policy: 'cache-aware' });
    expect(await windowWith({ 'package.json': JSON.stringify({ name: 'my-agent' }) })).toMatchObject({ budgetTokens: 100_000 });
  });

  it('derives the budget from the model with --budget model, with the file\'s overrides', async () => {
    const model = resolveModel('openai', 'gpt-4o');
    expect(model.known).toBe(true);
    const derived = await windowWith({}, {}, ['--budget', 'model', '--provider', 'openai', '--model', 'gpt-4o']);
    expect(derived.budgetTokens).toBe(Math.floor(model.contextWindowTokens * 0.9 - model.maxOutputTokens));
    const overridden = await windowWith({ 'sliding-context.config.json': JSON.stringify({ budget: 'model', modelBudget: { contextWindowTokens: 128_000, reservedOutputTokens: 4096 } }) }, {}, ['--provider', 'openai', '--model', 'gpt-4o']);
    expect(overridden.budgetTokens).toBe(111_104);
  });

  it('corrects the model catalog from the file\'s "models", from --models, and from --context-window and --max-output', async () => {
    const unknown = ['--budget', 'model', '--provider', 'anthropic', '--model', 'claude-future-9'];
    const warned = await runCli(['window', 'session.json', '--json', ...unknown], { files: { 'session.json': example } });
    expect(warned.stderr).toMatch(/warning: Unknown model anthropic\/claude-future-9/);
    const models = { 'anthropic/claude-future-9': { contextWindowTokens: 100_000, maxOutputTokens: 10_000 } };
    const fromFile = await runCli(['window', 'session.json', '--json', ...unknown], { files: { 'session.json': example, 'sliding-context.config.json': JSON.stringify({ models }) } });
    expect(fromFile.stderr).not.toMatch(/Unknown model/);
    expect(JSON.parse(fromFile.stdout)).toMatchObject({ budgetTokens: 80_000 });
    expect(await windowWith({}, {}, [...unknown, '--models', JSON.stringify(models)])).toMatchObject({ budgetTokens: 80_000 });
    expect(await windowWith({}, {}, [...unknown, '--context-window', '50000', '--max-output', '5000'])).toMatchObject({ budgetTokens: 40_000 });
    // The flags win over the file, field by field; a dated id takes its family's entry.
    const file = { 'sliding-context.config.json': JSON.stringify({ models: { 'claude-future-9': { contextWindowTokens: 100_000, maxOutputTokens: 10_000 } } }) };
    expect(await windowWith(file, {}, [...unknown, '--max-output', '20000'])).toMatchObject({ budgetTokens: 70_000 });
    expect(await windowWith(file, {}, ['--budget', 'model', '--provider', 'anthropic', '--model', 'claude-future-9-20270101'])).toMatchObject({ budgetTokens: 80_000 });
    await expect(windowWith({}, {}, [...unknown, '--models', '{"x": {"contextWindowTokens": -1}}'])).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringMatching(/^--models: x\.contextWindowTokens: /) });
    await expect(windowWith({}, {}, [...unknown, '--context-window', 'big'])).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringMatching(/^--context-window: /) });
  });

  it('takes a budget with whitespace around it alike from --budget, SLIDING_CONTEXT_TOKENS and the file, and refuses an all-whitespace one naming where it came from', async () => {
    const file = (budget: string) => ({ 'sliding-context.config.json': JSON.stringify({ budget }) });
    const target = ['--provider', 'openai', '--model', 'gpt-4o'];
    const modelBudget = (await windowWith({}, {}, ['--budget', 'model', ...target])).budgetTokens;
    for (const [value, expected] of [[' 20000 ', 20_000], ['\t20000\n', 20_000], [' model ', modelBudget]] as const) {
      expect((await windowWith({}, {}, ['--budget', value, ...target])).budgetTokens).toBe(expected);
      expect((await windowWith({}, { SLIDING_CONTEXT_TOKENS: value }, target)).budgetTokens).toBe(expected);
      expect((await windowWith(file(value), {}, target)).budgetTokens).toBe(expected);
    }
    for (const blank of [' ', '\t ']) {
      const refused = (source: string) => ({ code: 'BUDGET_INVALID', message: `${source} must be a whole number of tokens, 0 or more (0 disables windowing); got ${JSON.stringify(blank)}.` });
      await expect(windowWith({}, {}, ['--budget', blank])).rejects.toMatchObject(refused('--budget'));
      await expect(windowWith({}, { SLIDING_CONTEXT_TOKENS: blank })).rejects.toMatchObject(refused('SLIDING_CONTEXT_TOKENS'));
      await expect(windowWith(file(blank))).rejects.toMatchObject(refused('sliding-context.config.json: budget'));
    }
    // An empty env var is unset (benchmarks clear it so); an empty flag or file value is refused.
    expect((await windowWith({}, { SLIDING_CONTEXT_TOKENS: '' })).budgetTokens).toBe(100_000);
    expect((await windowWith(file('30000'), { SLIDING_CONTEXT_TOKENS: '' })).budgetTokens).toBe(30_000);
    await expect(windowWith({}, {}, ['--budget', ''])).rejects.toMatchObject({ code: 'BUDGET_INVALID', message: expect.stringMatching(/^--budget must be/) });
    await expect(windowWith(file(''))).rejects.toMatchObject({ code: 'BUDGET_INVALID', message: expect.stringMatching(/^sliding-context\.config\.json: budget must be/) });
  });

  it.each([
    [{ budget: -5 }, 'BUDGET_INVALID', /^sliding-context\.config\.json: budget must be a whole number of tokens, 0 or more \(0 disables windowing\); got -5\.$/],
    [{ budget: true }, 'BUDGET_INVALID', /^sliding-context\.config\.json: budget must be a whole number of tokens/],
    [{ policy: 'halves' }, 'INVALID_POLICY', /sliding-context\.config\.json: policy: /],
    [{ condense: { thresholdPercent: 150 } }, 'INVALID_OPTION', /sliding-context\.config\.json: condense\.thresholdPercent: /],
    [{ condense: { maxSummaryShare: 0.8 } }, 'INVALID_OPTION', /sliding-context\.config\.json: condense\.maxSummaryShare: /],
    [{ bugdet: 1000 }, 'INVALID_OPTION', /sliding-context\.config\.json: \(top level\): .*bugdet/],
  ])('refuses a bad config file, naming the field: %o', async (bad, code, message) => {
    await expect(windowWith({ 'sliding-context.config.json': JSON.stringify(bad) })).rejects.toMatchObject({ code, message: expect.stringMatching(message) });
  });

  it('reads a config file or package.json that starts with a byte order mark, as text or as bytes', async () => {
    const withMark = '\uFEFF' + JSON.stringify({ budget: 30_000 });
    expect(await windowWith({ 'sliding-context.config.json': withMark })).toMatchObject({ budgetTokens: 30_000 });
    const { stdout } = await runCli(['window', 'session.json', '--json'], { files: { 'session.json': example, 'sliding-context.config.json': Buffer.from(withMark) } });
    expect(JSON.parse(stdout)).toMatchObject({ budgetTokens: 30_000 });
    expect(await windowWith({ 'package.json': '\uFEFF' + JSON.stringify({ name: 'my-agent', slidingContext: { budget: 12_345 } }) })).toMatchObject({ budgetTokens: 12_345 });
  });

  it('refuses a config file that is not UTF-8, naming the first bad byte', async () => {
    const latin1 = Buffer.from('{"provider": "openai", "model": "gpt-4o-café"}', 'latin1');
    await expect(runCli(['window', 'session.json', '--json'], { files: { 'session.json': example, 'sliding-context.config.json': latin1 } })).rejects.toMatchObject({
      code: 'INPUT_NOT_TEXT',
      message: `sliding-context.config.json is not valid UTF-8 (byte ${latin1.indexOf(0xe9)}); JSON must be UTF-8, so save it as UTF-8.`,
    });
  });

  it('refuses a config file that is not JSON, and a policy flag that names no policy', async () => {
    await expect(windowWith({ 'sliding-context.config.json': '{ budget: 1' })).rejects.toMatchObject({ code: 'INVALID_JSON', message: expect.stringMatching(/sliding-context\.config\.json is not valid JSON/) });
    await expect(windowWith({}, {}, ['--policy', 'halves'])).rejects.toMatchObject({ code: 'INVALID_POLICY', message: '--policy: "halves" is not a window policy; use one of budget, fraction, sequence, clear-tool-outputs, cache-aware.' });
  });

  it('resolves the condense threshold per profile: in range, −1 inherits, out of range warns and uses the global one', () => {
    const config = { condense: { thresholdPercent: 70, profile: 'chat', profiles: { chat: { thresholdPercent: 80 }, code: { thresholdPercent: -1 }, wild: { thresholdPercent: 150 } } } };
    let stderr = '';
    const io = (profile?: string) => ({ env: profile ? { SLIDING_CONTEXT_PROFILE: profile } : {}, stderr: { write: (text: string) => (stderr += text) } });
    expect(cliCondenseThreshold(config, io())).toBe(80);
    expect(cliCondenseThreshold(config, io('code'))).toBe(70);
    expect(stderr).toBe('');
    expect(cliCondenseThreshold(config, io('wild'))).toBe(70);
    expect(stderr).toMatch(/^warning: Condense threshold 150 for profile "wild" is outside 5–100/);
    expect(cliCondenseThreshold({}, io())).toBe(75);
  });
});
