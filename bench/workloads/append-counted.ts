import type { ModelMessage } from '../../src/message/message.js';
import type { HistoryStore } from '../../src/store/history-store.js';
import type { CountTarget, TokenCounter } from '../../src/tokens/token-counter.js';

/**
 * Stores messages with their counts for `target`, as a conversation stores them, in commits of
 * 10,000 messages at most.
 */
export async function appendCounted(
  store: HistoryStore,
  agentId: string,
  messages: readonly ModelMessage[],
  counter: TokenCounter,
  target: CountTarget,
): Promise<void> {
  for (let start = 0; start < messages.length; start += 10_000) {
    const part = messages.slice(start, start + 10_000);
    await store.append(agentId, part, { counts: part.map((message) => counter.countMessage({ ...target, message })), countTarget: target });
  }
}
