import { describe, expect, it } from 'vitest';
import type { ExchangeHistory } from '../conversation/exchange-history.js';
import { bytesPerTokenCounter as counter } from '../tokens/bytes-per-token-counter.js';
import { planWindow } from '../window/plan-window.js';
import { agentExchangesJson } from './agent-window-json.js';

const at = { agentId: 'agent', createdAt: new Date(0) };
const described = (index: number, extra: Partial<ExchangeHistory> = {}): ExchangeHistory => ({
  index, title: `exchange ${index}`, tools: [], tokens: 10, inWindow: true, pinned: false, firstSeq: index + 1, summarized: false, ...at, ...extra,
});

describe('agentExchangesJson', () => {
  // `history --json` has always printed these keys in this order; scripts that read its text see them so.
  it('keeps the key order of each exchange: the plan\'s bounds when the plan holds it, then the view\'s fields, then cache', () => {
    const plan = planWindow({ messages: [{ role: 'user', content: 'one' }, { role: 'user', content: 'two' }], counter, budgetTokens: 0 });
    const cache = { inputTokens: 10, cacheReadTokens: 4, cacheWriteTokens: 0, requests: 1 };
    const json = agentExchangesJson(plan, [
      described(0, { summarized: true, inWindow: false }),
      described(1, { cache }),
      described(2),
    ]);
    const view = ['tokens', 'inWindow', 'pinned', 'summarized', 'title', 'tools', 'createdAt', 'outOfWindow'];
    expect(json.map((exchange) => Object.keys(exchange))).toEqual([
      ['index', ...view],
      ['index', 'firstMessage', 'lastMessage', ...view, 'cache'],
      ['index', 'firstMessage', 'lastMessage', ...view],
    ]);
    expect(json[0]).toMatchObject({ index: 0, outOfWindow: 'summarized' });
    expect(json[1]).toMatchObject({ index: 1, firstMessage: 0, lastMessage: 0, outOfWindow: null, cache });
    expect(json[2]).toMatchObject({ index: 2, firstMessage: 1, lastMessage: 1 });
  });
});
