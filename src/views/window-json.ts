import type { WindowPlan } from '../window/window-plan.js';

/** The `--json` report: the plan, the window's messages, and the body to send in the input's format. */
export function toWindowJson(plan: WindowPlan, input: string | { readonly format: string; readonly transcript?: string }, request: unknown) {
  return {
    ...(typeof input === 'string' ? { format: input } : input),
    provider: plan.provider,
    model: plan.model,
    budgetTokens: plan.budgetTokens,
    totalTokens: plan.totalTokens,
    pinnedTokens: plan.pinnedTokens,
    floorTokens: plan.floorTokens,
    pins: plan.pins,
    overBudget: plan.overBudget,
    overByTokens: plan.overByTokens,
    exact: plan.exact,
    method: plan.method,
    preambleMessages: plan.preambleMessages,
    evictedExchanges: plan.evictedExchanges,
    cutoffMessage: plan.cutoffMessage,
    exchanges: plan.exchanges,
    syntheticResults: plan.syntheticResults,
    policy: plan.policy,
    clearedToolOutputs: plan.clearedToolOutputs,
    cut: plan.cut,
    messages: plan.messages,
    request,
  };
}
