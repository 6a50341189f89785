import { loadCliConfig } from './cli-config.js';
import type { CliIo } from './cli-io.js';
import { cliModelOverrides } from './cli-model-overrides.js';
import { budgetSetting } from './cli-settings.js';

/**
 * The budget the flag (or the config file, through it) or `SLIDING_CONTEXT_TOKENS` gives, or
 * undefined when none is set; checked once, in {@link budgetSetting}. `model` derives it from
 * the model: its context window less reserved output and a safety buffer, with the config file's
 * `modelBudget` overrides and the catalog overrides in force.
 */
export async function resolveCliBudget(
  io: CliIo,
  flag: string | number | undefined,
  target: { readonly provider: string; readonly model: string },
): Promise<number | undefined> {
  const budget = budgetSetting(flag, io.env);
  if (budget !== 'model') return budget;
  // The model catalog is loaded only here: `history` and `window` start faster without it.
  const [{ resolveModel }, { modelBudget }] = await Promise.all([import('../tokens/model-catalog.js'), import('../window/model-budget.js')]);
  const overrides = (await loadCliConfig(io)).modelBudget;
  return modelBudget(resolveModel(target.provider, target.model, await cliModelOverrides(io, target)), overrides).allowedTokens;
}
