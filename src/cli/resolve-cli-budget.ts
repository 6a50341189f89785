import { resolveBudgetTokens } from '../window/budget-tokens.js';
import { loadCliConfig } from './cli-config.js';
import type { CliIo } from './cli-io.js';
import { cliModelOverrides } from './cli-model-overrides.js';

/**
 * The budget the flag or `SLIDING_CONTEXT_TOKENS` gives, or undefined when neither is set.
 * `model` derives it from the model: its context window less reserved output and a safety
 * buffer, with the config file's `modelBudget` overrides and the catalog overrides in force.
 */
export async function resolveCliBudget(
  io: CliIo,
  flag: string | undefined,
  target: { readonly provider: string; readonly model: string },
): Promise<number | undefined> {
  const value = flag ?? (io.env.SLIDING_CONTEXT_TOKENS?.trim() || undefined);
  if (value === undefined) return undefined;
  if (value.trim() !== 'model') return resolveBudgetTokens({ budgetTokens: flag, environmentValue: io.env.SLIDING_CONTEXT_TOKENS });
  // The model catalog is loaded only here: `history` and `window` start faster without it.
  const [{ resolveModel }, { modelBudget }] = await Promise.all([import('../tokens/model-catalog.js'), import('../window/model-budget.js')]);
  const overrides = (await loadCliConfig(io)).modelBudget;
  return modelBudget(resolveModel(target.provider, target.model, await cliModelOverrides(io, target)), overrides).allowedTokens;
}
