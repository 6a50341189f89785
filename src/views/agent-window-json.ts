import type { ExchangeHistory, PinHistory } from '../conversation/exchange-history.js';
import type { WindowPlan } from '../window/window-plan.js';
import { toWindowJson } from './window-json.js';

/**
 * An agent's exchanges as `history --json` and `window --agent --json` print them: numbered over
 * the whole history as the human views number them, with the plan's message indices for those
 * the plan holds (summarized ones have no place in it).
 */
export function agentExchangesJson(plan: WindowPlan, exchanges: readonly ExchangeHistory[]) {
  // The plan's exchanges are those not summarized, in order. An index, not shift(): shifting a
  // long array moves every element each time. Each object is built field by field, in the order
  // the JSON has always had (the plan's fields first when the plan holds it), not by spreading:
  // this runs over every exchange of a long history on each write the web view hears.
  let next = 0;
  return exchanges.map(({ index, title, tools, tokens, inWindow, pinned, createdAt, summarized, cache }) => {
    const planned = summarized ? undefined : plan.exchanges[next++];
    const outOfWindow = inWindow ? null : summarized ? ('summarized' as const) : ('evicted' as const);
    const json = planned
      ? {
          index, firstMessage: planned.firstMessage, lastMessage: planned.lastMessage,
          tokens, inWindow, pinned, summarized, title, tools, createdAt, outOfWindow,
        }
      : { index, tokens, inWindow, pinned, summarized, title, tools, createdAt, outOfWindow };
    return cache ? { ...json, cache } : json;
  });
}

/** The plan's exchanges numbered as an agent's views number them: over its whole history, summarized ones included. */
export function agentExchangeNumbering(exchanges: readonly ExchangeHistory[]): (planIndex: number) => number {
  const numbers: number[] = [];
  for (const exchange of exchanges) if (!exchange.summarized) numbers.push(exchange.index);
  return (index) => numbers[index] ?? index;
}

/**
 * The `window` report of an agent's plan, told as its human views tell it: exchanges numbered over
 * the whole history, `evictedExchanges` counting the summarized ones too, the cut's exchanges by
 * those numbers, each synthetic result naming its exchange by that number, and each pin naming
 * its message by where it is stored.
 */
export function agentWindowJson(plan: WindowPlan, exchanges: readonly ExchangeHistory[], format: string, request: unknown, pins: readonly PinHistory[] = []) {
  const described = agentExchangesJson(plan, exchanges);
  const numbers = described.filter((exchange) => !exchange.summarized).map((exchange) => exchange.index);
  const numbering = agentExchangeNumbering(exchanges);
  const numberOf = (index: number | null) => (index === null ? null : numbering(index));
  const { cut } = plan;
  return {
    ...toWindowJson(plan, format, request),
    cut: {
      ...cut,
      previousExchange: numberOf(cut.previousExchange),
      exchange: numberOf(cut.exchange),
      stablePrefixEnd: { ...cut.stablePrefixEnd, exchange: numberOf(cut.stablePrefixEnd.exchange) },
    },
    evictedExchanges: exchanges.filter((exchange) => !exchange.inWindow).length,
    exchanges: described,
    syntheticResults: plan.syntheticResults.map((result) => ({ ...result, exchange: numbers[result.exchange] ?? result.exchange })),
    pins,
  };
}
