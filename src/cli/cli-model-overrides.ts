import { type Command, Option } from 'commander';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import type { ModelOverride } from '../tokens/model-catalog.js';
import { loadCliConfig, MODEL_OVERRIDES_SCHEMA } from './cli-config.js';
import type { CliIo } from './cli-io.js';

/** The flags that correct the catalog, for every command that takes `--model`. */
export function modelOverrideOptions(): Option[] {
  return [
    new Option('--context-window <tokens>', 'the model\'s context window in tokens, over the catalog\'s (and the config file\'s "models")'),
    new Option('--max-output <tokens>', 'the model\'s maximum output in tokens, over the catalog\'s'),
    new Option('--models <json>', 'catalog overrides as JSON: { "provider/model": { "contextWindowTokens": N, "maxOutputTokens": N } }'),
  ];
}

interface OverrideFlags {
  readonly models: Readonly<Record<string, ModelOverride>>;
  readonly target: ModelOverride;
}

const given = new WeakMap<Pick<CliIo, 'env'>, OverrideFlags>();

function positiveTokens(value: unknown, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const tokens = Number(value);
  if (!Number.isInteger(tokens) || tokens <= 0) throw new SlidingContextError('INVALID_OPTION', `${flag}: expected a positive whole number of tokens, received ${JSON.stringify(value)}.`);
  return tokens;
}

/**
 * Reads the catalog flags of the command about to run; {@link cliModelOverrides} applies them.
 * @throws SlidingContextError `INVALID_OPTION` naming the flag and field (`INVALID_JSON` for `--models` that is not JSON)
 */
export function recordModelOverrideFlags(io: Pick<CliIo, 'env'>, command: Command): void {
  const options = command.opts<{ contextWindow?: string; maxOutput?: string; models?: string }>();
  let models: Record<string, ModelOverride> = {};
  if (options.models !== undefined) {
    let json: unknown;
    try {
      json = JSON.parse(options.models) as unknown;
    } catch (error) {
      throw new SlidingContextError('INVALID_JSON', `--models is not valid JSON: ${(error as Error).message}.`);
    }
    const parsed = MODEL_OVERRIDES_SCHEMA.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new SlidingContextError('INVALID_OPTION', `--models: ${issue?.path.join('.') || '(top level)'}: ${issue?.message ?? 'invalid'}.`);
    }
    models = parsed.data;
  }
  const contextWindowTokens = positiveTokens(options.contextWindow, '--context-window');
  const maxOutputTokens = positiveTokens(options.maxOutput, '--max-output');
  given.set(io, { models, target: { ...(contextWindowTokens ? { contextWindowTokens } : {}), ...(maxOutputTokens ? { maxOutputTokens } : {}) } });
}

/**
 * The catalog overrides in force for a run: the config file's `models`, then `--models`, then
 * `--context-window` and `--max-output` for the model the command counts for.
 */
export async function cliModelOverrides(io: CliIo, target: { readonly provider: string; readonly model: string }): Promise<Record<string, ModelOverride>> {
  const fromConfig = (await loadCliConfig(io)).models ?? {};
  const flags = given.get(io);
  const merged: Record<string, ModelOverride> = { ...fromConfig, ...flags?.models };
  if (!flags || Object.keys(flags.target).length === 0) return merged;
  const key = `${target.provider}/${target.model}`;
  // The entry the catalog would pick for this model, corrected by the flags.
  const base = merged[key] ?? merged[target.model] ?? {};
  return { ...merged, [key]: { ...base, ...flags.target } };
}
