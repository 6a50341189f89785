import { afterAll, describe, expect, it } from 'vitest';
import { digestSummarizer } from '../condense/digest-summarizer.js';
import { HistoryStore } from '../store/history-store.js';
import { createServerDatabase } from '../testing/server-database.js';
import { loadTokenCounter } from '../tokens/load-token-counter.js';
import { type Conversation, openConversation } from './conversation.js';

const counter = await loadTokenCounter();
const target = { provider: 'openai', model: 'gpt-4o', counter, budgetTokens: 600 };

/** A user turn long enough that a few of them pass the budget, naming a path the loss report lists. */
const ask = (turn: number) => ({ role: 'user' as const, content: `Turn ${turn}: look at src/part-${turn}/entry.ts. ${'Some context. '.repeat(30)}` });

/** A user turn that passes the budget with the last ones: the request it is in evicts. */
const longAsk = (turn: number) => ({ role: 'user' as const, content: `${ask(turn).content} ${'More detail. '.repeat(60)}` });

/** Turns until a request evicts: the user's long message and the request, then the answer before the next. */
async function untilARequestEvicts(conversation: Conversation): Promise<void> {
  const seen = { evicted: false };
  const stop = conversation.on((event) => {
    if (event.type === 'exchange-evicted') seen.evicted = true;
  });
  try {
    for (let index = 100; ; index++) {
      await conversation.append([longAsk(index)]);
      await conversation.request();
      if (seen.evicted) return;
      await conversation.append([{ role: 'assistant', content: 'Done.' }]);
    }
  } finally {
    stop();
  }
}

/** The evicted ranges of an agent as the store keeps them: where, and what they record. */
async function evictions(store: HistoryStore, agentId: string) {
  return (await store.ranges(agentId, { kind: 'evicted' })).map(({ first, last, data }) => ({ first: first.seq, last: last.seq, data }));
}

/** A turn as a proxy takes it: the user's message stored, the request built, the answer stored, the turn ended. */
async function turn(
  conversation: Conversation,
  index: number,
  checks: { between?: () => Promise<void>; answered?: () => Promise<void>; long?: boolean } = {},
): Promise<void> {
  await conversation.append([checks.long === true ? longAsk(index) : ask(index)]);
  await conversation.request();
  await checks.between?.();
  await conversation.append([{ role: 'assistant', content: `Done with part ${index}.` }]);
  await checks.answered?.();
  await conversation.endTurn();
}

function describeDeferredRecords(engine: string, open: () => Promise<HistoryStore>) {
  describe(`eviction records written with the next write on ${engine}`, () => {
    it('a request records nothing itself; its answer\'s append records what it evicted, as a conversation that records at once does', async () => {
      const store = await open();
      try {
        const deferred = await openConversation({ store, ...target, deferEvictionRecords: true });
        const atOnce = await openConversation({ store, ...target });
        const evictedByRequests = { count: 0 };
        let requesting = false;
        deferred.on((event) => {
          if (event.type === 'exchange-evicted' && requesting) evictedByRequests.count++;
        });
        let checked = 0;
        for (let index = 0; index < 8; index++) {
          const before = (await evictions(store, deferred.agentId)).length;
          await turn(atOnce, index, { long: index % 2 === 1 });
          const evictedBefore = evictedByRequests.count;
          requesting = true;
          await turn(deferred, index, {
            long: index % 2 === 1,
            between: async () => {
              requesting = false;
              // Between the request and the answer: what the request evicted is not stored yet.
              expect(await evictions(store, deferred.agentId)).toHaveLength(before);
              checked++;
            },
            // The answer's append stores it, before the turn ends.
            answered: async () => { expect(await evictions(store, deferred.agentId)).toHaveLength(before + evictedByRequests.count - evictedBefore); },
          });
        }
        expect(checked).toBe(8);
        expect(evictedByRequests.count).toBeGreaterThan(0);
        const recorded = await evictions(store, deferred.agentId);
        expect(recorded.length).toBeGreaterThan(1);
        expect(recorded).toEqual(await evictions(store, atOnce.agentId));
        expect(recorded.flatMap(({ data }) => (data as { dropped: { kind: string; text: string }[] }).dropped).map((item) => item.text)).toContain('src/part-0/entry.ts');
      } finally {
        await store.close();
      }
    });

    it('what waits is written once, by whichever write comes first; a write that fails leaves it for the next', async () => {
      const store = await open();
      try {
        const conversation = await openConversation({ store, ...target, deferEvictionRecords: true });
        for (let index = 0; index < 4; index++) await turn(conversation, index);
        const settled = (await evictions(store, conversation.agentId)).length;
        await untilARequestEvicts(conversation);
        // Another writer appends to the agent: this conversation's next append is refused as stale.
        const other = await openConversation({ store, ...target, agentId: conversation.agentId });
        await other.append([{ role: 'assistant', content: 'From elsewhere.' }]);
        await expect(conversation.append([{ role: 'assistant', content: 'Mine.' }])).rejects.toMatchObject({ code: 'STALE_WINDOW' });
        expect(await evictions(store, conversation.agentId)).toHaveLength(settled);
        await Promise.all([conversation.writeEvictionRecords(), conversation.writeEvictionRecords()]);
        await conversation.writeEvictionRecords();
        expect(await evictions(store, conversation.agentId)).toHaveLength(settled + 1);
      } finally {
        await store.close();
      }
    });

    it('the history view and a pin write what waits before they read or record; a summary made by the request that evicted writes the eviction first', async () => {
      const store = await open();
      try {
        const plain = await openConversation({ store, ...target, deferEvictionRecords: true });
        const condensing = await openConversation({ store, ...target, condense: { summarizer: digestSummarizer() }, deferEvictionRecords: true });
        for (const conversation of [plain, condensing]) for (let index = 0; index < 4; index++) await turn(conversation, index);
        const waiting = (await evictions(store, plain.agentId)).length;
        await untilARequestEvicts(plain);
        expect(await evictions(store, plain.agentId)).toHaveLength(waiting);
        const view = await plain.historyView();
        expect(await evictions(store, plain.agentId)).toHaveLength(waiting + 1);
        expect(view.losses?.map((loss) => loss.kind)).toEqual((await evictions(store, plain.agentId)).map(() => 'evicted'));
        await plain.append([{ role: 'assistant', content: 'Done.' }]);
        await untilARequestEvicts(plain);
        const [firstUser] = (await store.history(plain.agentId)).filter((entry) => entry.message.role === 'user');
        await plain.pin(firstUser?.seq ?? 1);
        expect(await evictions(store, plain.agentId)).toHaveLength(waiting + 2);
        // A summary made by the request that evicted: the eviction is written before it.
        const events: string[] = [];
        condensing.on((event) => events.push(event.type));
        for (let index = 200; ; index++) {
          expect(index, 'no request evicted and then condensed').toBeLessThan(260);
          await condensing.writeEvictionRecords();
          const written = (await evictions(store, condensing.agentId)).length;
          events.length = 0;
          await condensing.append([longAsk(index)]);
          await condensing.request();
          const evicted = events.indexOf('exchange-evicted');
          if (evicted !== -1 && events.indexOf('summary-created', evicted) !== -1) {
            expect((await evictions(store, condensing.agentId)).length).toBeGreaterThan(written);
            break;
          }
          await condensing.append([{ role: 'assistant', content: 'Done.' }]);
        }
      } finally {
        await store.close();
      }
    });
  });
}

describeDeferredRecords('PGlite', () => HistoryStore.open({ memory: true }));

const serverUrl = process.env.DATABASE_URL;
if (serverUrl) {
  const databases: Awaited<ReturnType<typeof createServerDatabase>>[] = [];
  afterAll(async () => {
    for (const database of databases) await database.drop();
  });
  describeDeferredRecords('the PostgreSQL server', async () => {
    const database = await createServerDatabase(serverUrl, 'deferred_evictions');
    databases.push(database);
    return HistoryStore.open({ databaseUrl: database.url });
  });
} else {
  describe('eviction records written with the next write on the PostgreSQL server', () => {
    it.skip('skipped: DATABASE_URL is not set (CI sets it to the local server)', () => undefined);
  });
}
