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

describe('/pin and /unpin in the chat', () => {
  it('pins your last message by default or a seq, shows the pins in /history, unpins, and refuses a tool call in one line', async () => {
    const agentId = await store.createAgent({ provider: 'openai', model: 'gpt-4o' });
    await store.append(agentId, [
      { role: 'user', content: 'Never edit files under vendor/.' },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'list_files', input: {} }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'list_files', output: { type: 'text', value: 'vendor/ src/' } }] },
      { role: 'assistant', content: 'Noted.' },
      { role: 'user', content: 'Now add a test.' },
      { role: 'assistant', content: 'Added.' },
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
    await session.handle('/pin');
    expect(written).toBe('pinned seq 5: sent word for word in every window\n');
    await session.handle('/pin 1');
    await session.handle('/history');
    expect(written).toMatch(/Pins {7}2 messages, \d+ tokens; the request takes at least [\d,]+ of the budget 10,000:\n {2}seq 1 {2}in place · \d+ tokens\n {2}seq 5 {2}in place · \d+ tokens\n/);
    written = '';
    await session.handle('/pin 2');
    expect(written).toMatch(/^error: Cannot pin seq 2 for agent .*: the assistant message holds a tool-call \(list_files, c1\); only text can be pinned/);
    expect(written.trim().split('\n')).toHaveLength(1);
    written = '';
    await session.handle('/unpin 5');
    expect(written).toBe('unpinned seq 5\n');
    await session.handle('/help');
    expect(written).toContain('/pin [seq]        pin a message (default: your last): sent word for word in every window');
  });
});
