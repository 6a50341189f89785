import type { Command } from 'commander';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import { validateBudgetTokens } from '../window/budget-tokens.js';
import type { CliConfig } from './cli-config.js';
import type { CliIo } from './cli-io.js';

/** The summarizers `compact` runs, by name. */
export const SUMMARIZER_NAMES = ['digest', 'llm'] as const;

/** The providers an `llm` summarizer calls. */
export const SUMMARIZER_PROVIDERS = ['openai', 'anthropic'] as const;

/**
 * The settings a flag, an env var or the config file may give, and where each is read. Flags win
 * over env vars, which win over the file. Settings of one `group` are one choice: a flag for any
 * of them keeps the others from env and file, and an env var for any keeps the others from the
 * file (`--data-dir` beats `DATABASE_URL`); of two env vars of a group, the first listed wins.
 * `envAtUse` settings are not filled in from their env var before the command runs: the command
 * asks {@link settingFromEnv} where it uses them (so that, for one, a chat's resume hint names
 * only the flags typed).
 */
export const CLI_SETTINGS = [
  { option: 'budget', env: 'SLIDING_CONTEXT_TOKENS', envAtUse: true, config: (config: CliConfig) => config.budget },
  { option: 'databaseUrl', env: 'DATABASE_URL', envAtUse: true, group: 'store', config: (config: CliConfig) => config.databaseUrl },
  { option: 'dataDir', env: 'SLIDING_CONTEXT_DATA_DIR', envAtUse: true, group: 'store', config: (config: CliConfig) => config.dataDir },
  { option: 'provider', env: 'SLIDING_CONTEXT_PROVIDER', config: (config: CliConfig) => config.provider },
  { option: 'model', env: 'SLIDING_CONTEXT_MODEL', config: (config: CliConfig) => config.model },
  { option: 'policy', env: 'SLIDING_CONTEXT_POLICY', config: (config: CliConfig) => config.policy },
  { option: 'pinFirst', env: 'SLIDING_CONTEXT_PIN_FIRST', config: (config: CliConfig) => config.pinFirst },
  { option: 'summarizer', env: 'SLIDING_CONTEXT_SUMMARIZER', values: SUMMARIZER_NAMES, config: (config: CliConfig) => config.condense?.summarizer },
  { option: 'summarizerProvider', env: 'SLIDING_CONTEXT_SUMMARIZER_PROVIDER', values: SUMMARIZER_PROVIDERS, config: (config: CliConfig) => config.condense?.summarizerProvider },
  { option: 'summarizerModel', env: 'SLIDING_CONTEXT_SUMMARIZER_MODEL', config: (config: CliConfig) => config.condense?.summarizerModel },
  { option: 'baseUrl', env: 'SLIDING_CONTEXT_BASE_URL', config: (config: CliConfig) => config.condense?.baseUrl },
  { option: 'maxSummaryShare', env: 'SLIDING_CONTEXT_MAX_SUMMARY_SHARE', config: (config: CliConfig) => config.condense?.maxSummaryShare },
] as const satisfies readonly CliSetting[];

interface CliSetting {
  readonly option: string;
  readonly env: string;
  readonly envAtUse?: boolean;
  readonly group?: 'store';
  /** The values it may take; an env var's other value is refused naming the variable (the config file's schema checks its own). */
  readonly values?: readonly string[];
  readonly config: (config: CliConfig) => unknown;
}

/** The name of a setting, as its option's attribute (`dataDir` for `--data-dir`). */
export type CliSettingName = (typeof CLI_SETTINGS)[number]['option'];

/** The settings a command reads from their env vars where it uses them. */
type EnvAtUseSetting = 'budget' | 'databaseUrl' | 'dataDir';

/** Which source sets a setting: a flag typed, an env var, or the config file. */
export type SettingWinner = { readonly source: 'flag' } | { readonly source: 'env' | 'config'; readonly value: unknown };

/** What a run was given: the settings its command declares, the flags typed, the env and the config. */
export interface SettingInputs {
  readonly declared: ReadonlySet<string>;
  readonly given: ReadonlySet<string>;
  readonly env: CliIo['env'];
  readonly config: CliConfig;
}

const isInEnv = (env: CliIo['env'], name: string) => env[name] !== undefined && env[name] !== '';

/** The settings of `setting`'s group that the command declares, itself included. */
function groupOf(setting: CliSetting, declared: ReadonlySet<string>): readonly CliSetting[] {
  const group = setting.group;
  return group === undefined ? [setting] : CLI_SETTINGS.filter((member: CliSetting) => member.group === group && declared.has(member.option));
}

/**
 * The source that sets `name` for a run, by the precedence above, or undefined when none does
 * (the command's own default then holds). A value from the env is the variable's text.
 */
export function settingWinner(name: CliSettingName, inputs: SettingInputs): SettingWinner | undefined {
  const setting: CliSetting | undefined = CLI_SETTINGS.find((each) => each.option === name);
  if (setting === undefined || !inputs.declared.has(name)) return undefined;
  if (inputs.given.has(name)) return { source: 'flag' };
  const group = groupOf(setting, inputs.declared);
  if (group.some((member) => inputs.given.has(member.option))) return undefined;
  const fromEnv = group.find((member) => isInEnv(inputs.env, member.env));
  if (fromEnv !== undefined) return fromEnv === setting ? { source: 'env', value: inputs.env[setting.env] } : undefined;
  const fromConfig = setting.config(inputs.config);
  return fromConfig === undefined ? undefined : { source: 'config', value: fromConfig };
}

/**
 * The env var's value for an `envAtUse` setting the command did not get from a flag or the config
 * file (see {@link applyCliSettings}), or undefined.
 */
export function settingFromEnv(name: EnvAtUseSetting, flags: { readonly [Name in EnvAtUseSetting]?: unknown }, env: CliIo['env']): string | undefined {
  const setting: CliSetting | undefined = CLI_SETTINGS.find((each) => each.option === name);
  if (setting === undefined) return undefined;
  const group = setting.group === undefined ? [setting] : CLI_SETTINGS.filter((member: CliSetting) => member.group === setting.group);
  const flagOf = (option: string) => (option === 'budget' || option === 'databaseUrl' || option === 'dataDir' ? flags[option] : undefined);
  if (group.some((member) => flagOf(member.option) !== undefined && flagOf(member.option) !== '')) return undefined;
  const fromEnv = group.find((member) => isInEnv(env, member.env));
  return fromEnv === setting ? env[setting.env] : undefined;
}

/**
 * A budget as a flag, an env var or the config file gives it: tokens or `model`, whitespace
 * around it ignored. `source` names where it came from, for the error.
 * @throws SlidingContextError `BUDGET_INVALID`, for an empty or all-whitespace value too
 */
export function parseBudgetSetting(value: unknown, source: string): number | 'model' {
  if (typeof value === 'string' && value.trim() === 'model') return 'model';
  return validateBudgetTokens(value, source);
}

/**
 * The budget a run asks for: tokens, `model`, or undefined. A flag's or the env's text is
 * checked here (naming `--budget` or `SLIDING_CONTEXT_TOKENS`; an empty env var is unset); the
 * config file's value was checked when the file was read, and a number from it is used as it is.
 * @throws SlidingContextError `BUDGET_INVALID`
 */
export function budgetSetting(flag: string | number | undefined, env: CliIo['env']): number | 'model' | undefined {
  if (typeof flag === 'number') return flag;
  if (flag !== undefined) return parseBudgetSetting(flag, '--budget');
  const fromEnv = settingFromEnv('budget', {}, env);
  return fromEnv === undefined ? undefined : parseBudgetSetting(fromEnv, 'SLIDING_CONTEXT_TOKENS');
}

/**
 * The most of the budget a summary may take, as a fraction: a flag's or the env's text is checked
 * here (above 0, at most 0.5, as the config file's `condense.maxSummaryShare`); the config file's
 * number was checked when the file was read.
 * @throws SlidingContextError `INVALID_OPTION`
 */
export function summaryShareSetting(value: string | number | undefined): number | undefined {
  if (value === undefined || typeof value === 'number') return value;
  const share = Number(value.trim());
  if (value.trim() === '' || !Number.isFinite(share) || share <= 0 || share > 0.5) {
    throw new SlidingContextError('INVALID_OPTION', `--max-summary-share (or SLIDING_CONTEXT_MAX_SUMMARY_SHARE) must be a fraction of the budget above 0 and at most 0.5, e.g. 0.1; got "${value}".`);
  }
  return share;
}

/**
 * The condense profile in force: `SLIDING_CONTEXT_PROFILE` (even empty, as it always was read),
 * else the config file's `condense.profile`. No flag sets it.
 */
export function condenseProfileSetting(env: CliIo['env'], config: CliConfig): string | undefined {
  return env.SLIDING_CONTEXT_PROFILE ?? config.condense?.profile;
}

/**
 * Fills the options a command declares but was not given, from env vars and then the config.
 * @throws SlidingContextError `INVALID_OPTION` naming the env var, for a value it cannot take
 */
export function applyCliSettings(command: Command, config: CliConfig, env: CliIo['env']): void {
  const declared = new Set(command.options.map((option) => option.attributeName()));
  const given = new Set([...declared].filter((option) => {
    const source = command.getOptionValueSource(option);
    return source === 'cli' || (source === undefined && command.getOptionValue(option) !== undefined);
  }));
  for (const setting of CLI_SETTINGS as readonly CliSetting[]) {
    const winner = settingWinner(setting.option as CliSettingName, { declared, given, env, config });
    if (winner === undefined || winner.source === 'flag') continue;
    if (winner.source === 'env') {
      if (setting.values !== undefined && !setting.values.includes(String(winner.value))) {
        throw new SlidingContextError('INVALID_OPTION', `${setting.env}: ${JSON.stringify(winner.value)} is not one of ${setting.values.join(' or ')}; set it to one of them, or unset it.`);
      }
      if (setting.envAtUse !== true) command.setOptionValueWithSource(setting.option, setting.option === 'pinFirst' ? winner.value === '1' || winner.value === 'true' : winner.value, 'env');
      continue;
    }
    command.setOptionValueWithSource(setting.option, winner.value, 'config');
  }
}
