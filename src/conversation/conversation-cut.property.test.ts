import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HistoryStore } from '../store/history-store.js';
import { conversationArbitrary } from '../testing/conversation-arbitrary.js';
import { bytesPerTokenCounter } from '../tokens/bytes-per-token-counter.js';
import { planWindow } from '../window/plan-window.js';
import type { CacheAwarePolicy } from '../window/window-policy.js';
import { openConversation } from './conversation.js';
import { planHistoryView, planOutlinedHistory } from './exchange-history.js';
import { historyOutlineFromJson, historyOutlineToJson, readHistoryOutline } from './history-outline.js';

const counter = bytesPerTokenCounter;
const target = { provider: 'other', model: 'any' };

/** A history appended turn by turn, a low-water mark and a budget of a few exchanges. */
const scenario = fc
  .tuple(
    conversationArbitrary({ maxExchanges: 12 }),
    fc.constantFrom(0.5, 0.7, 0.9),
    fc.double({ min: 0.1, max: 0.7, noNaN: true }),
    fc.boolean(),
    fc.integer({ min: 1, max: 5 }),
  )
  .map(([conversation, lowWaterMark, share, pinFirstExchange, chunk]) => {
    const full = planWindow({ ...conversation, ...target, budgetTokens: 0, counter });
    const policy: CacheAwarePolicy = { name: 'cache-aware', lowWaterMark };
    return { ...conversation, policy, budgetTokens: Math.max(1, Math.round(full.totalTokens * share)), pinFirstExchange, chunk };
  });

describe('a cache-aware Conversation on a store', () => {
  let store: HistoryStore;
  beforeAll(async () => {
    store = await HistoryStore.open({ memory: true });
  });
  afterAll(async () => {
    await store.close();
  });

  it('keeps its cut across a restart: a conversation opened again, and the history view, see the same window', async () => {
    let moved = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async (input) => {
        const agentId = await store.createAgent({ budgetTokens: input.budgetTokens, pinFirstExchange: input.pinFirstExchange });
        const open = () => openConversation({ store, agentId, ...target, counter, system: input.system, tools: input.tools, policy: input.policy });
        const conversation = await open();
        for (let at = 0; at < input.messages.length; at += input.chunk) {
          await conversation.append(input.messages.slice(at, at + input.chunk));
          await conversation.endTurn();
          const { report } = await conversation.request();
          const reopened = await open();
          const again = await reopened.request();
          expect(again.report.messages).toEqual(report.messages);
          const history = await reopened.history();
          expect(history.filter((exchange) => exchange.inWindow).length).toBe(report.exchanges.filter((exchange) => exchange.inWindow).length);
          if (report.evictedExchanges > 0) moved++;
        }
      }),
      { numRuns: 40 },
    );
    expect(moved).toBeGreaterThan(20);
  }, 240_000);

  it('moves its cut once when the request passes the budget, then keeps it while the turns fit', async () => {
    const agentId = await store.createAgent({ budgetTokens: 1_000 });
    const conversation = await openConversation({ store, agentId, ...target, counter, policy: { name: 'cache-aware', lowWaterMark: 0.5 } });
    const turn = (index: number) => [{ role: 'user' as const, content: `question ${index} ${'x'.repeat(380)}` }, { role: 'assistant' as const, content: `answer ${index}` }];
    const firsts: unknown[] = [];
    for (let index = 0; index < 12; index++) {
      await conversation.append(turn(index));
      await conversation.endTurn();
      const { report } = await conversation.request();
      expect(report.totalTokens).toBeLessThanOrEqual(1_000);
      firsts.push(report.messages[0]);
    }
    // The window's first message changes only at a cut, not on every turn.
    const changes = firsts.filter((first, index) => index > 0 && first !== firsts[index - 1]).length;
    expect(changes).toBeGreaterThan(0);
    expect(changes).toBeLessThan(6);

    // The history view from the store, and from its outline saved as JSON (no store at hand),
    // plan the kept cut, not the one a first plan of the same messages would choose.
    const policy = { name: 'cache-aware', lowWaterMark: 0.5 } as const;
    const options = { ...target, budgetTokens: 1_000, policy, preambleCount: counter.countPreamble(target), loadCounter: () => Promise.resolve(counter) };
    const viewed = await planHistoryView({ ...options, store, agentId });
    const saved = historyOutlineFromJson(JSON.parse(JSON.stringify(historyOutlineToJson(await readHistoryOutline(store, agentId)))));
    const outlined = saved && (await planOutlinedHistory(saved, options));
    const { report } = await conversation.request();
    expect(viewed.plan.cut).toMatchObject({ reason: 'fits', moved: false, exchange: report.cut.exchange });
    expect(outlined?.plan.cut).toEqual(viewed.plan.cut);
    const fresh = planWindow({ messages: Array.from({ length: 12 }, (_, index) => turn(index)).flat(), ...options, counter });
    expect(fresh.cut.exchange).not.toBe(viewed.plan.cut.exchange);
  });
});
