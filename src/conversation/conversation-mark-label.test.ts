import { describe, expect, it } from 'vitest';
import { HistoryStore } from '../store/history-store.js';
import { bytesPerTokenCounter as counter } from '../tokens/bytes-per-token-counter.js';
import { openConversation } from './conversation.js';

describe('Conversation.mark and rewind', () => {
  it('refuse a label with no visible character, as the CLI does, and store nothing', async () => {
    const store = await HistoryStore.open({ memory: true });
    try {
      const conversation = await openConversation({ store, provider: 'openai', model: 'gpt-4o', counter });
      await conversation.append([{ role: 'user', content: 'hi' }]);
      for (const label of ['', '   ']) {
        await expect(conversation.mark(label)).rejects.toMatchObject({ code: 'INVALID_MESSAGE', message: expect.stringContaining('label needs at least one visible character') });
        await expect(conversation.rewind(label)).rejects.toMatchObject({ code: 'INVALID_MESSAGE' });
      }
      expect(conversation.marks).toEqual([]);
      expect(await store.history(conversation.agentId)).toHaveLength(1);
    } finally {
      await store.close();
    }
  });
});
