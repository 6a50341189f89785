import type { ExchangeHistory } from '../../conversation/exchange-history.js';
import type { WindowPlan } from '../../window/window-plan.js';
import { agentExchangesJson } from '../../views/agent-window-json.js';
import type { WindowReportRow } from './window-report.js';

export { agentExchangeNumbering } from '../../views/agent-window-json.js';

/** The window report's rows for an agent: every exchange of its history, numbered as `history` numbers them. */
export function agentWindowRows(plan: WindowPlan, exchanges: readonly ExchangeHistory[]): WindowReportRow[] {
  return agentExchangesJson(plan, exchanges).map((exchange, position) => {
    const history = exchanges[position] as ExchangeHistory;
    return {
      index: exchange.index,
      title: exchange.title,
      toolCalls: history.toolCalls ?? Object.fromEntries(history.tools.map((name) => [name, 1])),
      tokens: exchange.tokens,
      state: exchange.summarized ? 'summarized' : exchange.pinned ? 'pinned' : exchange.inWindow ? 'in' : 'out',
      startsWindow: 'firstMessage' in exchange && exchange.firstMessage === plan.cutoffMessage && !exchange.pinned,
    };
  });
}
