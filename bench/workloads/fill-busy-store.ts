import type { ModelMessage } from '../../src/message/message.js';
import type { HistoryStore } from '../../src/store/history-store.js';

/**
 * Stores `count` short messages spread over agents of 10,000 messages each, in appends of 2,000:
 * the other conversations of a busy store.
 */
export async function fillBusyStore(store: HistoryStore, count: number): Promise<void> {
  const perAgent = 10_000;
  for (let agentStart = 0; agentStart < count; agentStart += perAgent) {
    const agentId = await store.createAgent({});
    const size = Math.min(perAgent, count - agentStart);
    for (let start = 0; start < size; start += 2_000) {
      const part: ModelMessage[] = [];
      for (let index = start; index < Math.min(size, start + 2_000); index += 2) {
        part.push({ role: 'user', content: `filler ${String(agentStart)} question ${String(index)}` });
        part.push({ role: 'assistant', content: `answer ${String(index)}` });
      }
      await store.append(agentId, part);
    }
  }
}
