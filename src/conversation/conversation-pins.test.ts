import { afterAll, describe, expect, it } from 'vitest';
import { digestSummarizer } from '../condense/digest-summarizer.js';
import { isSummaryMessage } from '../condense/stored-summary.js';
import { HistoryStore } from '../store/history-store.js';
import { answer, fixTurn, user } from '../testing/message-builders.js';
import { createServerDatabase } from '../testing/server-database.js';
import { loadTokenCounter } from '../tokens/load-token-counter.js';
import { openConversation } from './conversation.js';

const counter = await loadTokenCounter();
const target = { provider: 'openai', model: 'gpt-4o' };
const RULE = 'Always run the tests with --runInBand; never edit files under vendor/.';
/** The seq of turn i's request, after the pinned rule and its answer (seqs 1 and 2). */
const requestSeq = (i: number) => 3 + 4 * (i - 1);

/** A store for one test: PGlite in memory, or a fresh database on the server. */
type OpenStore = () => Promise<HistoryStore>;

function describePins(engine: string, openOnce: OpenStore) {
  // One store for the engine's tests: each test makes its own agents.
  let shared: Promise<HistoryStore> | undefined;
  const openStore = () => (shared ??= openOnce());
  afterAll(async () => {
    await (await shared)?.close();
  });
  async function conversationWithRule(options: { readonly pinned?: boolean; readonly turns?: number; readonly condense?: boolean } = {}) {
    const store = await openStore();
    const condense = options.condense === true ? { condense: { summarizer: digestSummarizer(), thresholdPercent: 100 } } : {};
    const conversation = await openConversation({ store, ...target, counter, budgetTokens: 2000, system: 'Be terse.', ...condense });
    await conversation.append([user(RULE)], { pinned: options.pinned !== false });
    await conversation.append([answer('Understood.')]);
    for (let i = 1; i <= (options.turns ?? 12); i++) {
      await conversation.append(fixTurn(i));
      await conversation.endTurn();
    }
    return { store, conversation };
  }

  describe(`pins (${engine})`, () => {
    it('a message appended pinned is hoisted after the preamble once its exchange is evicted, within budget, and the same after a restart', async () => {
      const { store, conversation } = await conversationWithRule();
      const { report, request } = await conversation.request();
      expect(report.exchanges[0]?.inWindow).toBe(false);
      expect(report.pins).toEqual([{ message: 0, exchange: 0, placement: 'hoisted', tokens: expect.any(Number) as number }]);
      expect(report.messages[0]).toEqual({ role: 'system', content: RULE, providerOptions: { 'sliding-context': { hoistedPin: true } } });
      expect(report.messages[1]?.role).toBe('user');
      expect(report.totalTokens).toBeLessThanOrEqual(2000);
      expect(JSON.stringify(request)).toContain(RULE);
      const reopened = await openConversation({ store, agentId: conversation.agentId, ...target, counter, system: 'Be terse.' });
      expect((await reopened.request()).request).toEqual(request);
      const view = await reopened.historyView();
      expect(view.pins).toEqual([{ message: { agentId: conversation.agentId, seq: 1 }, placement: 'hoisted', tokens: report.pins[0]?.tokens }]);
      expect(view.plan.totalTokens).toBe(report.totalTokens);
    });

    it('pin and unpin by seq; a fork inherits the pins; a rewind undoes the pins set after its mark', async () => {
      const { store, conversation } = await conversationWithRule({ pinned: false });
      const second = requestSeq(2);
      expect(await conversation.pin(second)).toBe(true);
      expect(await conversation.pin(second)).toBe(false);
      const sent = async (of = conversation) => JSON.stringify((await of.request()).report.messages);
      expect(await sent()).toContain('Request 2: fix the bug in src/2.ts');
      expect((await conversation.request()).report.pins.map((pin) => pin.placement)).toEqual(['hoisted']);
      const child = await conversation.fork();
      await conversation.unpin(second);
      expect(await sent()).not.toContain('Request 2: fix the bug');
      expect(await sent(child)).toContain('Request 2: fix the bug in src/2.ts');
      await expect(conversation.unpin(second)).rejects.toMatchObject({ code: 'INVALID_PIN', message: expect.stringContaining('not pinned') as string });
      await conversation.mark('before-pin');
      await conversation.pin(requestSeq(3));
      expect((await conversation.historyView()).pins).toHaveLength(1);
      await conversation.rewind('before-pin');
      expect((await conversation.historyView()).pins ?? []).toEqual([]);
      expect(await sent()).not.toContain('Request 3: fix the bug');
      expect((await store.windowTail(conversation.agentId, { minTokens: 0, withFirstExchange: false })).pinEvents).toBe(2);
    });

    it('refuses a tool call, a tool result, a seq the model does not see, and a pin that leaves no room for the latest exchange; nothing is stored', async () => {
      const { store, conversation } = await conversationWithRule({ pinned: false, turns: 3 });
      const stored = async () => (await store.history(conversation.agentId)).length;
      const before = await stored();
      await expect(conversation.pin(requestSeq(1) + 1)).rejects.toMatchObject({ code: 'INVALID_PIN', message: expect.stringMatching(/tool-call \(read_file, call_1\)/) as string });
      await expect(conversation.pin(requestSeq(1) + 2)).rejects.toMatchObject({ code: 'INVALID_PIN', message: expect.stringMatching(/tool-result/) as string });
      await expect(conversation.pin(999)).rejects.toMatchObject({ code: 'INVALID_PIN', message: expect.stringContaining('seq 999') as string });
      await expect(conversation.append(fixTurn(9).slice(0, 2), { pinned: true })).rejects.toMatchObject({ code: 'INVALID_PIN' });
      // A long message, evicted, would be hoisted: with the latest exchange it passes the budget.
      await conversation.append([user(`Background: ${'the build uses make and a vendored zlib. '.repeat(200)}`), answer('Noted.')]);
      for (let i = 4; i <= 8; i++) {
        await conversation.append(fixTurn(i));
        await conversation.endTurn();
      }
      const long = before + 1;
      const count = await stored();
      await expect(conversation.pin(long)).rejects.toMatchObject({
        code: 'PIN_OVER_BUDGET',
        message: expect.stringMatching(new RegExp(`Cannot pin seq ${long} for agent .*: it adds \\d+ tokens, .* would then take \\d+ tokens, over the budget of 2000`)) as string,
      });
      expect(await stored()).toBe(count);
      expect((await conversation.request()).report.pins).toEqual([]);
      expect(before).toBeGreaterThan(0);
    });

    it('after a compaction each pinned text is checked word for word in what the model sees, and a pin the summary covers is hoisted after it', async () => {
      const { conversation } = await conversationWithRule({ condense: true });
      const result = await conversation.compact();
      expect(result.fallback).toBeNull();
      expect(result.pins).toEqual([{ agentId: conversation.agentId, seq: 1, present: true }]);
      const { report } = await conversation.request();
      expect(report.messages[0] && isSummaryMessage(report.messages[0])).toBe(true);
      expect(report.messages[1]).toMatchObject({ role: 'system', content: RULE });
      expect(report.pins).toEqual([{ message: 1, exchange: null, placement: 'hoisted', tokens: expect.any(Number) as number }]);
      const view = await conversation.historyView();
      expect(view.pins).toEqual([{ message: { agentId: conversation.agentId, seq: 1 }, placement: 'hoisted', tokens: expect.any(Number) as number }]);
    });

    it('the store pins what an append marks pinned, and counts the pin events a rewind did not hide', async () => {
      const store = await openStore();
      const agentId = await store.createAgent();
      await store.append(agentId, [user('Keep answers short.'), answer('Sure.')], { pinned: true });
      const bodies = (await store.history(agentId)).map((entry) => entry.message);
      expect(bodies.slice(2)).toEqual([{ role: 'event', kind: 'pin', data: { back: 1 } }, { role: 'event', kind: 'pin', data: { back: 0 } }]);
      await store.append(agentId, [{ role: 'event', kind: 'mark', label: 'm' }, user('Next.'), { role: 'event', kind: 'pin', data: { back: 0 } }]);
      await store.append(agentId, [{ role: 'event', kind: 'rewind', label: 'm' }]);
      expect((await store.windowTail(agentId, { minTokens: 0, withFirstExchange: false })).pinEvents).toBe(2);
      await expect(store.append(agentId, [{ role: 'tool', content: [] }], { pinned: true })).rejects.toMatchObject({ code: 'INVALID_PIN' });
    });
  });
}

describePins('PGlite', () => HistoryStore.open({ memory: true }));

const serverUrl = process.env.DATABASE_URL;
if (serverUrl) {
  const databases: Awaited<ReturnType<typeof createServerDatabase>>[] = [];
  afterAll(async () => {
    for (const database of databases) await database.drop();
  });
  describePins('PostgreSQL server', async () => {
    const database = await createServerDatabase(serverUrl, 'pins');
    databases.push(database);
    return HistoryStore.open({ databaseUrl: database.url });
  });
}
