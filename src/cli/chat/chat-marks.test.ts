import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HistoryStore } from '../../store/history-store.js';
import { loadTokenCounter } from '../../tokens/load-token-counter.js';
import { ChatSession } from './chat-session.js';

let store: HistoryStore;
beforeAll(async () => {
  store = await HistoryStore.open({ memory: true });
}, 120_000);
afterAll(async () => {
  await store.close();
});

describe('/marks in the chat', () => {
  it('lists the marks a rewind can reach, as `marks` does', async () => {
    const agentId = await store.createAgent({ provider: 'openai', model: 'gpt-4o' });
    await store.append(agentId, [
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'ok' },
      { role: 'event', kind: 'mark', label: 'before-refactor' },
      { role: 'user', content: 'second' },
      { role: 'assistant', content: 'ok' },
    ]);
    let written = '';
    const session = await ChatSession.start({
      store,
      agentId,
      model: 'gpt-4o',
      conversation: { provider: 'openai', budgetTokens: 10_000 },
      loadCounter: (model) => loadTokenCounter({ targets: [{ provider: 'openai', model }] }),
      client: () => Promise.reject(new Error('no model is called for a slash command')),
      tools: { cwd: '.', allowCommands: false, confirm: () => Promise.resolve(false) },
      terminal: { write: (text) => void (written += text), clear: () => undefined, confirm: () => Promise.resolve(false), style: { width: 100, color: false } },
    });
    written = '';
    expect(await session.handle('/marks')).toBe(true);
    expect(written).toMatch(/^LABEL +SEQ +SET +EXCHANGE\n"before-refactor" +seq 3 +just now +after exchange #0, before #1\n$/);
    await session.handle('/help');
    expect(written).toContain('/marks            the marks a rewind can reach');
  });
});
