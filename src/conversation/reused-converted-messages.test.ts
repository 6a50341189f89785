import { describe, expect, it } from 'vitest';
import { HistoryStore } from '../store/history-store.js';
import { loadTokenCounter } from '../tokens/load-token-counter.js';
import { openConversation } from './conversation.js';

const counter = await loadTokenCounter();

/** Two requests of one conversation, the second after one more turn: their Chat messages. */
async function twoRequests(reuseConvertedMessages: boolean): Promise<[unknown[], unknown[]]> {
  const store = await HistoryStore.open({ memory: true });
  try {
    const conversation = await openConversation({ store, provider: 'openai', model: 'gpt-4o', counter, budgetTokens: 10_000, reuseConvertedMessages });
    await conversation.append([{ role: 'user', content: 'Run the tests.' }, { role: 'assistant', content: 'They pass.' }, { role: 'user', content: 'And lint?' }]);
    const first = (await conversation.request()).request as { messages: unknown[] };
    await conversation.append([{ role: 'assistant', content: 'Clean.' }, { role: 'user', content: 'Ship it.' }]);
    const second = (await conversation.request()).request as { messages: unknown[] };
    return [first.messages, second.messages];
  } finally {
    await store.close();
  }
}

describe('a conversation that reuses its converted messages', () => {
  it('builds each request from the elements of the one before, frozen, and the same bodies as one that does not', async () => {
    const [first, second] = await twoRequests(true);
    expect(first).toHaveLength(3);
    first.forEach((element, index) => {
      expect(second[index]).toBe(element);
      expect(Object.isFrozen(element)).toBe(true);
    });
    const [plainFirst, plainSecond] = await twoRequests(false);
    expect(plainSecond[0]).not.toBe(plainFirst[0]);
    expect(Object.isFrozen(plainFirst[0])).toBe(false);
    expect([first, second]).toEqual([plainFirst, plainSecond]);
  });
});
