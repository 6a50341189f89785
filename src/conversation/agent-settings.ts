import { isRecord } from '../message/is-record.js';
import type { ToolDefinition } from '../message/message.js';
import { parseToolDefinitions } from '../message/parse-messages.js';
import { type CountTarget, countTargetKey, type TokenCount } from '../tokens/token-counter.js';
import { DEFAULT_BUDGET_TOKENS, validateBudgetTokens } from '../window/budget-tokens.js';

/** The settings an agent keeps in its stored meta, and its forks inherit. */
export interface AgentSettings {
  budgetTokens: number;
  readonly pinFirstExchange: boolean;
  readonly system: string | undefined;
  readonly tools: readonly ToolDefinition[] | undefined;
}

/** Settings given now; each one given wins over the stored one. */
export interface SettingsOverrides {
  readonly budgetTokens?: number | undefined;
  readonly pinFirstExchange?: boolean | undefined;
  readonly system?: string | undefined;
  readonly tools?: readonly ToolDefinition[] | undefined;
  /** `system` and `tools` as given, undefined ones included: the stored ones are not used. */
  readonly preambleAsGiven?: boolean | undefined;
}

/** An agent's settings: the overrides given, else what its meta holds, else the defaults. */
export function agentSettings(meta: Readonly<Record<string, unknown>>, overrides: SettingsOverrides = {}): AgentSettings {
  const { budgetTokens, system, tools } = meta;
  return {
    budgetTokens: validateBudgetTokens(overrides.budgetTokens ?? (typeof budgetTokens === 'number' ? budgetTokens : DEFAULT_BUDGET_TOKENS)),
    pinFirstExchange: overrides.pinFirstExchange ?? meta.pinFirstExchange === true,
    system: overrides.preambleAsGiven === true ? overrides.system : overrides.system ?? (typeof system === 'string' ? system : undefined),
    tools: overrides.preambleAsGiven === true
      ? overrides.tools
      : overrides.tools ?? (Array.isArray(tools) ? parseToolDefinitions(tools, 'the agent\'s stored tools') : undefined),
  };
}

/** The meta a new agent is created with: its model, settings and the count of its preamble. */
export function newAgentMeta(target: CountTarget, settings: SettingsOverrides, preambleCount: TokenCount): Record<string, unknown> {
  return {
    ...target,
    budgetTokens: settings.budgetTokens ?? DEFAULT_BUDGET_TOKENS,
    pinFirstExchange: settings.pinFirstExchange === true,
    ...(settings.system === undefined ? {} : { system: settings.system }),
    ...(settings.tools === undefined ? {} : { tools: settings.tools }),
    preambleCount: { ...preambleCount, target: countTargetKey(target) },
  };
}

/** The stored count of the agent's own system prompt and tools, when it was made for `target`. */
export function storedPreambleCount(meta: Readonly<Record<string, unknown>>, target: CountTarget): TokenCount | undefined {
  const stored = meta.preambleCount;
  if (!isRecord(stored) || stored.target !== countTargetKey(target) || typeof stored.tokens !== 'number') return undefined;
  return { tokens: stored.tokens, exact: stored.exact === true, method: typeof stored.method === 'string' ? stored.method : 'unknown' };
}
