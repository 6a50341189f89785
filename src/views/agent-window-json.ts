import type { ExchangeHistory } from '../conversation/exchange-history.js';
import type { WindowPlan } from '../window/window-plan.js';
import { toWindowJson } from './window-json.js';

/**
 * An agent's exchanges as `history --json` and `window --agent --json` print them: numbered over
 * the whole history as the human views number them, with the plan's message indices for those
 * the plan holds (summarized ones have no place in it).
 */
export function agentExchangesJson(plan: WindowPlan, exchanges: readonly ExchangeHistory[]) {
  // The plan's exchanges are those not summarized, in order. An index, not shift(): shifting a
  // long array moves every element each time.
  let next = 0;
  return exchanges.map(({ index, title, tools, tokens, inWindow, pinned, createdAt, summarized, cache }) => {
    const exchange = summarized ? undefined : plan.exchanges[next++];
    const outOfWindow = inWindow ? null : summarized ? ('summarized' as const) : ('evicted' as const);
    return { ...(exchange ?? {}), index, tokens, inWindow, pinned, summarized, title, tools, createdAt, outOfWindow, ...(cache ? { cache } : {}) };
  });
}

/**
 * The `window` report of an agent's plan, told as its human views tell it: exchanges numbered over
 * the whole history, `evictedExchanges` counting the summarized ones too, and each synthetic
 * result naming its exchange by that number.
 */
export function agentWindowJson(plan: WindowPlan, exchanges: readonly ExchangeHistory[], format: string, request: unknown) {
  const described = agentExchangesJson(plan, exchanges);
  const numbers = described.filter((exchange) => !exchange.summarized).map((exchange) => exchange.index);
  return {
    ...toWindowJson(plan, format, request),
    evictedExchanges: exchanges.filter((exchange) => !exchange.inWindow).length,
    exchanges: described,
    syntheticResults: plan.syntheticResults.map((result) => ({ ...result, exchange: numbers[result.exchange] ?? result.exchange })),
  };
}
