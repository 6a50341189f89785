import { z } from 'zod';
import { DEFAULT_CONDENSE_THRESHOLD, resolveCondenseThreshold } from '../condense/condense-threshold.js';
import { errorCode } from '../errors/error-code.js';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import { isRecord } from '../message/is-record.js';
import { parseJsonText } from '../message/parse-json-text.js';
import { estimateFamilies, type EstimateFamilyName } from '../tokens/data/estimate-families.js';
import { WINDOW_POLICY_SCHEMA, WINDOW_POLICY_NAMES } from '../window/window-policy.js';
import type { CliIo } from './cli-io.js';
import { condenseProfileSetting, parseBudgetSetting, SUMMARIZER_NAMES, SUMMARIZER_PROVIDERS } from './cli-settings.js';
import { decodeInputText, type InputContent } from './decode-input-text.js';

/** The file the CLI reads its settings from, in the working directory. */
export const CONFIG_FILE = 'sliding-context.config.json';

const familyNames = Object.keys(estimateFamilies) as [EstimateFamilyName, ...EstimateFamilyName[]];

/** One model's corrections to the catalog, as the config file's `models` and `--models` give them. */
export const MODEL_OVERRIDE_SCHEMA = z.strictObject({
  contextWindowTokens: z.number().int().positive().optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  encoding: z.enum(['o200k_base', 'cl100k_base']).optional(),
  estimateFamily: z.enum(familyNames).optional(),
});

/** Overrides keyed `provider/model` or `model` (a dated id falls back to its family's key). */
export const MODEL_OVERRIDES_SCHEMA = z.record(z.string().min(1), MODEL_OVERRIDE_SCHEMA);

const profileSchema = z.object({ thresholdPercent: z.number() }).strict();

/** Settings of the CLI, as a config file holds them; flags and env vars win over them. */
export const CLI_CONFIG_SCHEMA = z.object({
  /** Tokens, or `"model"` for the model's window less reserved output and a buffer (see `parseCliConfig`). */
  budget: z.union([z.number().int().min(0), z.literal('model')]).optional(),
  provider: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  policy: z.union([z.enum(WINDOW_POLICY_NAMES), WINDOW_POLICY_SCHEMA]).optional(),
  pinFirst: z.boolean().optional(),
  dataDir: z.string().min(1).regex(/\S/, 'must not be blank').optional(),
  databaseUrl: z.string().min(1).regex(/\S/, 'must not be blank').optional(),
  /** Corrections to the model catalog, keyed `provider/model` or `model`. */
  models: MODEL_OVERRIDES_SCHEMA.optional(),
  modelBudget: z.object({
    contextWindowTokens: z.number().int().positive().optional(),
    reservedOutputTokens: z.number().int().min(0).optional(),
    bufferFraction: z.number().min(0).lt(1).optional(),
  }).strict().optional(),
  condense: z.object({
    summarizer: z.enum(SUMMARIZER_NAMES).optional(),
    /** Global threshold, in percent of the context window. */
    thresholdPercent: z.number().min(5).max(100).optional(),
    /** The profile in force; its threshold overrides the global one (−1 inherits). */
    profile: z.string().optional(),
    profiles: z.record(z.string(), profileSchema).optional(),
    summarizerProvider: z.enum(SUMMARIZER_PROVIDERS).optional(),
    summarizerModel: z.string().min(1).optional(),
    baseUrl: z.url().optional(),
    customCondensingPrompt: z.string().min(1).optional(),
    /** The most of the budget a summary may take (the digest's cap), as a fraction. */
    maxSummaryShare: z.number().gt(0).max(0.5).optional(),
  }).strict().optional(),
}).strict();

export type CliConfig = z.infer<typeof CLI_CONFIG_SCHEMA>;

/**
 * Checks settings read from `source`, naming the field of the first problem. The budget is
 * checked first, as `--budget` and `SLIDING_CONTEXT_TOKENS` are.
 * @throws SlidingContextError `BUDGET_INVALID`, `INVALID_POLICY` or `INVALID_OPTION`
 */
export function parseCliConfig(value: unknown, source: string): CliConfig {
  const checked = isRecord(value) && value.budget !== undefined ? { ...value, budget: parseBudgetSetting(value.budget, `${source}: budget`) } : value;
  const parsed = CLI_CONFIG_SCHEMA.safeParse(checked);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.length ? issue.path.join('.') : '(top level)';
  throw new SlidingContextError(issue?.path[0] === 'policy' ? 'INVALID_POLICY' : 'INVALID_OPTION', `${source}: ${field}: ${issue?.message ?? 'invalid'}.`);
}

/** The settings in `content`, UTF-8 with or without a byte order mark (editors on Windows write one). */
function parseJson(content: InputContent, source: string): unknown {
  return parseJsonText(decodeInputText(content, source), source, 'a JSON object of settings');
}

/**
 * Reads a settings file, or undefined when there is none.
 * @throws SlidingContextError `CONFIG_INVALID` when it is there but cannot be read (a directory, no permission)
 */
async function readSettingsFile(io: Pick<CliIo, 'readText'>, path: string): Promise<InputContent | undefined> {
  try {
    return await io.readText(path);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') return undefined;
    const reason = code === 'EISDIR' ? 'it is a directory, not a file' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : error instanceof Error ? error.message : String(error);
    throw new SlidingContextError('CONFIG_INVALID', `Cannot read the settings file ${path}: ${reason}; make it a readable JSON file or remove it.`, { cause: error });
  }
}

/** The settings read for each CLI run, so that the commands reuse what the first read found. */
const loaded = new WeakMap<Pick<CliIo, 'readText'>, Promise<CliConfig>>();

/**
 * The CLI's settings file: `sliding-context.config.json` in the working directory, else the
 * `slidingContext` key of its package.json, else none. Read once per run.
 * @throws SlidingContextError `INVALID_OPTION` (or `BUDGET_INVALID`, `INVALID_POLICY`), naming the file and field;
 * `CONFIG_INVALID` for a file that cannot be read; `INPUT_NOT_TEXT` for one that is not UTF-8
 */
export function loadCliConfig(io: Pick<CliIo, 'readText'>): Promise<CliConfig> {
  let config = loaded.get(io);
  if (!config) {
    config = readCliConfig(io);
    loaded.set(io, config);
  }
  return config;
}

async function readCliConfig(io: Pick<CliIo, 'readText'>): Promise<CliConfig> {
  const content = await readSettingsFile(io, CONFIG_FILE);
  if (content !== undefined) return parseCliConfig(parseJson(content, CONFIG_FILE), CONFIG_FILE);
  const manifestContent = await readSettingsFile(io, 'package.json');
  if (manifestContent === undefined) return {};
  const manifest = parseJson(manifestContent, 'package.json');
  if (isRecord(manifest) && manifest.slidingContext !== undefined) return parseCliConfig(manifest.slidingContext, 'package.json "slidingContext"');
  return {};
}

/**
 * The condense threshold the config gives: the profile's (from `SLIDING_CONTEXT_PROFILE`, else
 * `condense.profile`) when set and in range, else the global one, else 75. An out-of-range
 * profile value is written to stderr and the global one used.
 */
export function cliCondenseThreshold(config: CliConfig, io: Pick<CliIo, 'env' | 'stderr'>): number {
  const profiles = config.condense?.profiles ?? {};
  return resolveCondenseThreshold({
    globalPercent: config.condense?.thresholdPercent ?? DEFAULT_CONDENSE_THRESHOLD,
    profilePercents: Object.fromEntries(Object.entries(profiles).map(([name, profile]) => [name, profile.thresholdPercent])),
    profile: condenseProfileSetting(io.env, config),
    warn: (message) => io.stderr.write(`warning: ${message}\n`),
  });
}
