import { describe, expect, it } from 'vitest';
import type { HistoryStore } from '../store/history-store.js';
import type { RemoteHistoryStore } from '../store/remote-history-store.js';
import type { ConversationStore } from './conversation-store.js';

describe('ConversationStore', () => {
  it('is met by the store and by a store reached through its holder (checked when the types are)', () => {
    // A store that lost or renamed an operation the conversation uses fails to compile here.
    const local = (store: HistoryStore): ConversationStore => store;
    const remote = (store: RemoteHistoryStore): ConversationStore => store;
    expect([local, remote].every((port) => typeof port === 'function')).toBe(true);
  });
});
