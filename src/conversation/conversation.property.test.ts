import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HistoryStore } from '../store/history-store.js';
import { conversationArbitrary } from '../testing/conversation-arbitrary.js';
import { bytesPerTokenCounter } from '../tokens/bytes-per-token-counter.js';
import { planWindow } from '../window/plan-window.js';
import { openConversation } from './conversation.js';
import { planStoredHistory } from './exchange-history.js';

const counter = bytesPerTokenCounter;
const target = { provider: 'other', model: 'any' };

/**
 * A stored history (events included, sometimes split across a fork), how its counts were stored,
 * and a budget drawn around its size.
 */
const scenario = fc
  .tuple(
    // Some histories use a call id again once its call was answered, as some models do.
    fc.oneof(conversationArbitrary({ events: true }), conversationArbitrary({ events: true, reusedIds: true })),
    fc.double({ min: 0, max: 1.3, noNaN: true }),
    fc.boolean(),
    fc.constantFrom('counted', 'uncounted', 'other model'),
    fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
  )
  .map(([conversation, fraction, pinFirstExchange, counts, forkAt]) => {
    const full = planWindow({ ...conversation, ...target, budgetTokens: 0, counter });
    const budgetTokens = Math.max(1, Math.round(full.totalTokens * fraction));
    const split = forkAt === undefined ? undefined : Math.floor(conversation.messages.length * forkAt);
    return { ...conversation, budgetTokens, pinFirstExchange, counts, split };
  });

describe('Conversation loaded from the store', () => {
  let store: HistoryStore;
  beforeAll(async () => {
    store = await HistoryStore.open({ memory: true });
  });
  afterAll(async () => {
    await store.close();
  });

  it('reads only the end of the history, yet sends exactly the window planned over all of it', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (input) => {
        const counted = input.messages.map((message) => (message.role === 'event' ? null : counter.countMessage({ ...target, message })));
        // Counts made for another model must not be used as they are: these run four times high.
        const options =
          input.counts === 'uncounted'
            ? {}
            : input.counts === 'counted'
              ? { counts: counted, countTarget: target }
              : { counts: counted.map((count) => count && { ...count, tokens: count.tokens * 4 }), countTarget: { provider: 'openai', model: 'gpt-4o' } };
        const parent = await store.createAgent({ budgetTokens: input.budgetTokens, pinFirstExchange: input.pinFirstExchange });
        let agentId = parent;
        if (input.split === undefined) await store.append(parent, input.messages, options);
        else {
          await store.append(parent, input.messages.slice(0, input.split), { ...options, counts: options.counts?.slice(0, input.split) });
          agentId = await store.fork(parent);
          await store.append(agentId, input.messages.slice(input.split), { ...options, counts: options.counts?.slice(input.split) });
        }
        const conversation = await openConversation({ store, agentId, ...target, counter, system: input.system, tools: input.tools });
        const { report } = await conversation.request();
        const expected = planWindow({ ...input, ...target, counter });
        expect(report.messages).toEqual(expected.messages);
        expect(report.totalTokens).toBe(expected.totalTokens);
        expect(report.overBudget).toBe(expected.overBudget);
        const history = await conversation.history();
        expect(history.map((exchange) => exchange.inWindow)).toEqual(expected.exchanges.map((exchange) => exchange.inWindow));
        // The history view drawn from the outline is the one drawn from the bodies, field by field.
        const fromBodies = await planStoredHistory({
          ...target,
          store,
          agentId,
          budgetTokens: input.budgetTokens,
          pinFirstExchange: input.pinFirstExchange,
          system: input.system,
          tools: input.tools,
          loadCounter: () => Promise.resolve(counter),
        });
        expect(history).toEqual(fromBodies.exchanges);
      }),
      { numRuns: 150 },
    );
  }, 240_000);
});
