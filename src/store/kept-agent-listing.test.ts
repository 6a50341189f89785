import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixTurn } from '../testing/message-builders.js';
import { HistoryStore } from './history-store.js';

const directory = mkdtempSync(join(tmpdir(), 'sliding-context-listing-'));
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

describe('the agents listing kept by a store', () => {
  it('gives after each write what a store opened afresh lists', async () => {
    const dataDir = join(directory, 'data');
    const store = await HistoryStore.open({ dataDir });
    let listed: Awaited<ReturnType<HistoryStore['listAgents']>> | undefined;
    try {
      const root = await store.createAgent({ provider: 'openai', model: 'gpt-4o' }, { name: 'root' });
      // Listed before it stored anything, then after each kind of write.
      expect(await store.listAgents()).toHaveLength(1);
      await store.append(root, [{ role: 'system', content: 'You are a coding agent.' }]);
      expect((await store.listAgents())[0]?.messages).toBe(1);
      await store.append(root, fixTurn(0), { counts: fixTurn(0).map(() => ({ tokens: 7, exact: true, method: 'test' })), countTarget: { provider: 'openai', model: 'gpt-4o' } });
      expect((await store.listAgents())[0]?.tokens).toBeGreaterThan(0);
      const child = await store.fork(root, {}, { name: 'child' });
      await store.append(child, fixTurn(1));
      expect(await store.listAgents()).toHaveLength(2);
      await store.append(root, fixTurn(2));
      await store.renameAgent(child, 'renamed');
      const grandchild = await store.fork(child);
      expect(await store.listAgents()).toHaveLength(3);
      await store.append(grandchild, fixTurn(3));
      await store.createAgent({}, { name: 'empty' });
      listed = await store.listAgents();
    } finally {
      await store.close();
    }
    const afresh = await HistoryStore.open({ dataDir });
    try {
      expect(listed).toEqual(await afresh.listAgents());
      expect(listed).toHaveLength(4);
      expect(listed.find((agent) => agent.name === 'renamed')?.inheritedTokens).toBeGreaterThan(0);
    } finally {
      await afresh.close();
    }
  }, 60_000);
});
