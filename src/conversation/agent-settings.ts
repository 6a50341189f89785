import { isRecord } from '../message/is-record.js';
import type { ToolDefinition } from '../message/message.js';
import { parseToolDefinitions } from '../message/parse-messages.js';
import { sameJsonValue } from '../message/same-json-value.js';
import { type CountTarget, countTargetKey, type TokenCount } from '../tokens/token-counter.js';
import { DEFAULT_BUDGET_TOKENS, validateBudgetTokensOption } from '../window/budget-tokens.js';

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
    budgetTokens: validateBudgetTokensOption(overrides.budgetTokens ?? (typeof budgetTokens === 'number' ? budgetTokens : DEFAULT_BUDGET_TOKENS)),
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

/** A model and the system prompt and tools a call sent it, and the wire format of its body when given. */
export interface SentPreamble extends CountTarget {
  readonly system: string | undefined;
  readonly tools: readonly ToolDefinition[] | undefined;
  readonly format?: string | undefined;
}

/**
 * True when `meta` holds the model, system prompt and tools `sent`, and the count of that preamble
 * for that model: nothing to store. Compares the tools as their JSON (a stored tool has no undefined field).
 */
export function holdsSentPreamble(meta: Readonly<Record<string, unknown>>, sent: SentPreamble): boolean {
  if (meta.provider !== sent.provider || meta.model !== sent.model) return false;
  if (sent.format !== undefined && meta.format !== sent.format) return false;
  if ((typeof meta.system === 'string' ? meta.system : undefined) !== sent.system) return false;
  const sentTools: unknown = sent.tools === undefined ? undefined : JSON.parse(JSON.stringify(sent.tools));
  return sameJsonValue(Array.isArray(meta.tools) ? meta.tools : undefined, sentTools) && storedPreambleCount(meta, sent) !== undefined;
}

/**
 * The meta changes that make an agent's stored model, system prompt, tools (and format) those `sent`, with
 * `preambleCount`, their count for that model: a system prompt or tools not sent are removed (null).
 */
export function sentPreambleMeta(sent: SentPreamble, preambleCount: TokenCount): Record<string, unknown> {
  const target = { provider: sent.provider, model: sent.model };
  return {
    ...target,
    ...(sent.format === undefined ? {} : { format: sent.format }),
    system: sent.system ?? null,
    tools: sent.tools ?? null,
    preambleCount: { ...preambleCount, target: countTargetKey(target) },
  };
}

/** The stored count of the agent's own system prompt and tools, when it was made for `target`. */
export function storedPreambleCount(meta: Readonly<Record<string, unknown>>, target: CountTarget): TokenCount | undefined {
  const stored = meta.preambleCount;
  if (!isRecord(stored) || stored.target !== countTargetKey(target) || typeof stored.tokens !== 'number') return undefined;
  return { tokens: stored.tokens, exact: stored.exact === true, method: typeof stored.method === 'string' ? stored.method : 'unknown' };
}
