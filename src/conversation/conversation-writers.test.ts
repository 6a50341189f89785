import { afterAll, describe, expect, it } from 'vitest';
import type { Message } from '../message/message.js';
import { HistoryStore } from '../store/history-store.js';
import { createServerDatabase } from '../testing/server-database.js';
import { loadTokenCounter } from '../tokens/load-token-counter.js';
import type { WindowPolicy } from '../window/window-policy.js';
import { openConversation } from './conversation.js';

const counter = await loadTokenCounter();
const target = { provider: 'openai', model: 'gpt-4o', counter } as const;
const call: Message = { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: 'a.ts' } }] };
const result: Message = { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read_file', output: { type: 'text', value: 'x' } }] };

/** The same tests on each engine: `open` gives a fresh store. */
function describeWriters(name: string, open: () => Promise<HistoryStore>) {
  describe(`Conversation writers and refused opens: ${name}`, () => {
    it('a second Conversation on the agent gets STALE_WINDOW instead of splitting a call from its result, and the agent still opens', async () => {
      const store = await open();
      try {
        const first = await openConversation({ store, ...target });
        const second = await openConversation({ store, ...target, agentId: first.agentId });
        await first.append([{ role: 'user', content: 'read a.ts' }, call]);
        await expect(second.append([{ role: 'user', content: 'meanwhile' }])).rejects.toMatchObject({ code: 'STALE_WINDOW' });
        await first.append([result]);
        // The refused writer loaded the window again, but before the result: refused once more,
        // then, with the window loaded after it, the append goes through.
        await expect(second.append([{ role: 'user', content: 'after the result' }])).rejects.toMatchObject({ code: 'STALE_WINDOW' });
        await second.append([{ role: 'user', content: 'after the result' }]);
        const reopened = await openConversation({ store, ...target, agentId: first.agentId });
        expect((await reopened.request()).report.messages.length).toBe(4);
        expect((await store.history(first.agentId)).map((entry) => entry.message.role)).toEqual(['user', 'assistant', 'tool', 'user']);
      } finally {
        await store.close();
      }
    });

    it('an open refused for a bad budget or policy creates no agent', async () => {
      const store = await open();
      try {
        await expect(openConversation({ store, ...target, budgetTokens: -5 })).rejects.toMatchObject({ code: 'BUDGET_INVALID' });
        const policy: WindowPolicy = { name: 'fraction', fraction: 5 };
        await expect(openConversation({ store, ...target, policy })).rejects.toMatchObject({ code: 'INVALID_POLICY', message: expect.stringContaining('policy.fraction') });
        expect(await store.listAgents()).toEqual([]);
      } finally {
        await store.close();
      }
    });
  });
}

describeWriters('PGlite', () => HistoryStore.open({ memory: true }));

const serverUrl = process.env.DATABASE_URL;
if (serverUrl) {
  const databases: Awaited<ReturnType<typeof createServerDatabase>>[] = [];
  afterAll(async () => {
    for (const database of databases) await database.drop();
  });
  describeWriters('PostgreSQL server', async () => {
    const database = await createServerDatabase(serverUrl, 'writers');
    databases.push(database);
    return HistoryStore.open({ databaseUrl: database.url });
  });
} else {
  describe('Conversation writers: PostgreSQL server', () => {
    it.skip('skipped: DATABASE_URL is not set (CI sets it to the local server)', () => undefined);
  });
}
