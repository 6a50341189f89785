import { describe, expect, it } from 'vitest';
import { runCli } from './_test-cli.js';
import type { CliConfig } from './cli-config.js';
import { budgetSetting, CLI_SETTINGS, condenseProfileSetting, type CliSettingName, settingFromEnv, settingWinner, summaryShareSetting } from './cli-settings.js';

/** A config file that sets only `name`, to a value of its own. */
const configSetting: Record<CliSettingName, CliConfig> = {
  budget: { budget: 30_000 },
  databaseUrl: { databaseUrl: 'postgres://config/db' },
  dataDir: { dataDir: 'config-dir' },
  provider: { provider: 'google' },
  model: { model: 'config-model' },
  policy: { policy: 'fraction' },
  pinFirst: { pinFirst: true },
  summarizer: { condense: { summarizer: 'llm' } },
  summarizerProvider: { condense: { summarizerProvider: 'anthropic' } },
  summarizerModel: { condense: { summarizerModel: 'config-summarizer' } },
  baseUrl: { condense: { baseUrl: 'http://config.example/v1' } },
  maxSummaryShare: { condense: { maxSummaryShare: 0.2 } },
};
const configValue = (name: CliSettingName) => CLI_SETTINGS.find((setting) => setting.option === name)?.config(configSetting[name]);

/** Which sources are set, and which one must win. */
const COMBINATIONS = [
  ['flag only', { flag: true }, 'flag'],
  ['env only', { env: true }, 'env'],
  ['config only', { config: true }, 'config'],
  ['flag and env', { flag: true, env: true }, 'flag'],
  ['env and config', { env: true, config: true }, 'env'],
  ['all three', { flag: true, env: true, config: true }, 'flag'],
] as const;

const declared = new Set(CLI_SETTINGS.map((setting) => setting.option));

describe('CLI settings: a flag beats its env var, which beats the config file', () => {
  const rows = CLI_SETTINGS.flatMap((setting) => COMBINATIONS.map(([label, sources, winner]) => [setting.option, setting.env, label, sources, winner] as const));
  it.each(rows)('%s (%s), %s: the %s wins', (name, env, _label, sources, winner) => {
    const given = new Set<string>('flag' in sources ? [name] : []);
    const inputs = { declared, given, env: 'env' in sources ? { [env]: 'from-env' } : {}, config: 'config' in sources ? configSetting[name] : {} };
    const expected = winner === 'flag' ? { source: 'flag' } : winner === 'env' ? { source: 'env', value: 'from-env' } : { source: 'config', value: configValue(name) };
    expect(settingWinner(name, inputs)).toEqual(expected);
    expect(settingWinner(name, { declared, given: new Set(), env: {}, config: {} })).toBeUndefined();
  });

  it('takes one store: a flag for either keeps the other from env and file, an env var for either keeps the other from the file, DATABASE_URL before SLIDING_CONTEXT_DATA_DIR', () => {
    const config = { ...configSetting.dataDir, ...configSetting.databaseUrl };
    const none = { declared, given: new Set<string>(), env: {}, config: {} };
    expect(settingWinner('databaseUrl', { ...none, given: new Set(['dataDir']), env: { DATABASE_URL: 'postgres://env/db' } })).toBeUndefined();
    expect(settingWinner('dataDir', { ...none, env: { DATABASE_URL: 'postgres://env/db' }, config })).toBeUndefined();
    expect(settingWinner('databaseUrl', { ...none, env: { SLIDING_CONTEXT_DATA_DIR: 'env-dir' }, config })).toBeUndefined();
    expect(settingWinner('databaseUrl', { ...none, env: { DATABASE_URL: 'postgres://env/db', SLIDING_CONTEXT_DATA_DIR: 'env-dir' } })).toEqual({ source: 'env', value: 'postgres://env/db' });
    expect(settingWinner('dataDir', { ...none, env: { DATABASE_URL: 'postgres://env/db', SLIDING_CONTEXT_DATA_DIR: 'env-dir' } })).toBeUndefined();
    // An empty env var is unset.
    expect(settingWinner('dataDir', { ...none, env: { DATABASE_URL: '', SLIDING_CONTEXT_DATA_DIR: 'env-dir' } })).toEqual({ source: 'env', value: 'env-dir' });
    expect(settingFromEnv('dataDir', { databaseUrl: 'postgres://flag/db' }, { SLIDING_CONTEXT_DATA_DIR: 'env-dir' })).toBeUndefined();
    expect(settingFromEnv('dataDir', {}, { SLIDING_CONTEXT_DATA_DIR: 'env-dir' })).toBe('env-dir');
  });

  it('takes the condense profile from SLIDING_CONTEXT_PROFILE, else the config file', () => {
    const config = { condense: { profile: 'from-config' } };
    expect(condenseProfileSetting({ SLIDING_CONTEXT_PROFILE: 'from-env' }, config)).toBe('from-env');
    expect(condenseProfileSetting({}, config)).toBe('from-config');
    expect(condenseProfileSetting({}, {})).toBeUndefined();
  });

  it('names SLIDING_CONTEXT_SUMMARIZER (or _PROVIDER), not the flag, for a value from the env that is not one it takes', async () => {
    const refusal = (env: Record<string, string>) => runCli(['compact', 'some-agent'], { env }).then(() => 'ran', (caught: unknown) => String(caught));
    expect(await refusal({ SLIDING_CONTEXT_SUMMARIZER: 'bogus' })).toContain('SLIDING_CONTEXT_SUMMARIZER: "bogus" is not one of digest or llm; set it to one of them, or unset it.');
    expect(await refusal({ SLIDING_CONTEXT_SUMMARIZER: 'llm', SLIDING_CONTEXT_SUMMARIZER_PROVIDER: 'acme' })).toContain('SLIDING_CONTEXT_SUMMARIZER_PROVIDER: "acme" is not one of openai or anthropic;');
  });

  it('leaves a setting the command does not declare alone', () => {
    expect(settingWinner('summarizer', { declared: new Set(['budget']), given: new Set(), env: { SLIDING_CONTEXT_SUMMARIZER: 'llm' }, config: {} })).toBeUndefined();
  });

  it('checks the budget once, naming where it came from; the config file\'s number is taken as read', () => {
    expect(budgetSetting(30_000, {})).toBe(30_000);
    expect(budgetSetting('20000', { SLIDING_CONTEXT_TOKENS: '10' })).toBe(20_000);
    expect(budgetSetting(undefined, { SLIDING_CONTEXT_TOKENS: ' 10 ' })).toBe(10);
    expect(budgetSetting(undefined, { SLIDING_CONTEXT_TOKENS: 'model' })).toBe('model');
    expect(budgetSetting(undefined, { SLIDING_CONTEXT_TOKENS: '' })).toBeUndefined();
    expect(budgetSetting(' model ', {})).toBe('model');
    expect(() => budgetSetting(' ', {})).toThrow(/^--budget must be a whole number/);
    expect(() => budgetSetting(undefined, { SLIDING_CONTEXT_TOKENS: '  ' })).toThrow(/^SLIDING_CONTEXT_TOKENS must be a whole number/);
    expect(() => budgetSetting('-5', {})).toThrow(/--budget must be a whole number/);
    expect(() => budgetSetting(undefined, { SLIDING_CONTEXT_TOKENS: 'lots' })).toThrow(/SLIDING_CONTEXT_TOKENS must be a whole number/);
  });

  it('checks the summary share of a flag or env var (above 0, at most 0.5); the config file\'s number is taken as read', () => {
    expect(summaryShareSetting(0.2)).toBe(0.2);
    expect(summaryShareSetting(' 0.05 ')).toBe(0.05);
    expect(summaryShareSetting(undefined)).toBeUndefined();
    for (const bad of ['0', '0.6', 'lots', '', '-0.1']) expect(() => summaryShareSetting(bad)).toThrow(/--max-summary-share \(or SLIDING_CONTEXT_MAX_SUMMARY_SHARE\) must be a fraction/);
  });
});
