import { resolveModel } from '../tokens/model-catalog.js';
import { resolveBudgetTokens } from '../window/budget-tokens.js';
import { modelBudget } from '../window/model-budget.js';
import { loadCliConfig } from './cli-config.js';
import type { CliIo } from './cli-io.js';

/**
 * The budget the flag or `SLIDING_CONTEXT_TOKENS` gives, or undefined when neither is set.
 * `model` derives it from the model: its context window less reserved output and a safety
 * buffer, with the config file's `modelBudget` overrides.
 */
export async function resolveCliBudget(
  io: CliIo,
  flag: string | undefined,
  target: { readonly provider: string; readonly model: string },
): Promise<number | undefined> {
  const value = flag ?? (io.env.SLIDING_CONTEXT_TOKENS?.trim() || undefined);
  if (value === undefined) return undefined;
  if (value.trim() !== 'model') return resolveBudgetTokens({ budgetTokens: flag, environmentValue: io.env.SLIDING_CONTEXT_TOKENS });
  const overrides = (await loadCliConfig(io)).modelBudget;
  return modelBudget(resolveModel(target.provider, target.model), overrides).allowedTokens;
}
