import { resolveModel } from '../tokens/model-catalog.js';
import { modelBudget } from '../window/model-budget.js';
import { validateWindowPolicy } from '../window/window-policy.js';
import { agentSettings, holdsSentPreamble, newAgentMeta, sentPreambleMeta } from './agent-settings.js';
import type { OpenConversationOptions } from './conversation-options.js';

/**
 * The options a conversation runs with: a budget derived from the model when asked (the condense
 * threshold then a share of the model's window), the policy checked. Throws before anything is
 * stored, so a refused open creates no agent.
 */
export function resolveOpenOptions(given: OpenConversationOptions): OpenConversationOptions {
  const derived = given.modelBudget && given.budgetTokens === undefined
    ? modelBudget(resolveModel(given.provider, given.model), given.modelBudget === true ? {} : given.modelBudget)
    : undefined;
  const condense = given.condense && derived ? { contextWindowTokens: derived.contextWindowTokens, ...given.condense } : given.condense;
  const policy = given.policy === undefined ? undefined : validateWindowPolicy(given.policy, 'policy');
  return { ...given, policy, ...(derived ? { budgetTokens: derived.allowedTokens, condense } : {}) };
}

/** The agent to open: the one named, else a new one made with these options (checked first). */
export async function agentToOpen(options: OpenConversationOptions): Promise<string> {
  if (options.agentId !== undefined) return options.agentId;
  const target = { provider: options.provider, model: options.model };
  const preamble = options.counter.countPreamble({ ...target, system: options.system, tools: options.tools });
  // Made by calls that each carry their whole body, it keeps their format, as an open keeps it after.
  const format = options.preambleAsGiven === true && options.format !== undefined ? { format: options.format } : {};
  const meta = { ...options.meta, ...newAgentMeta(target, options, preamble), ...format };
  agentSettings(meta, options);
  return options.store.createAgent(meta);
}

/**
 * Makes the agent's stored model, system prompt, tools and format those of the call (one write,
 * only when they differ from `meta`), for a caller whose every call carries its whole body: what
 * the agent's views plan with is what its next call sends.
 */
export async function followSentPreamble(options: OpenConversationOptions, agentId: string, meta: Readonly<Record<string, unknown>>): Promise<void> {
  const sent = { provider: options.provider, model: options.model, system: options.system, tools: options.tools, format: options.format };
  if (!holdsSentPreamble(meta, sent)) await options.store.updateAgentMeta(agentId, sentPreambleMeta(sent, options.counter.countPreamble(sent)));
}
