import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Message, ModelMessage } from '../message/message.js';
import type { HistoryStore } from './history-store.js';

const event = (kind: 'clear' | 'mark' | 'rewind', label?: string): Message => (label === undefined ? { role: 'event', kind } : { role: 'event', kind, label });

/** Messages whose texts carry a tag of their own, so that no other test's agents share them. */
function tagged() {
  const tag = randomUUID();
  return {
    u: (text: string): ModelMessage => ({ role: 'user', content: `${tag} ${text}` }),
    a: (text: string): ModelMessage => ({ role: 'assistant', content: `${tag} ${text}` }),
  };
}

/**
 * The prefix index's part of the store contract: `findStoredPrefix` answers the prefix rule as
 * appends, forks, clears and rewinds leave each agent's visible history. `storeOf` gives the
 * contract's open store.
 */
export function describePrefixIndexContract(storeOf: () => HistoryStore) {
  describe('the prefix index', () => {
    it('finds the conversation a request extends or diverges from, and none for a shared system prompt alone', async () => {
      const store = storeOf();
      const { u, a } = tagged();
      const system: ModelMessage = { role: 'system', content: 'Be brief.' };
      const stored = [system, u('plan'), a('where?'), u('Lisbon'), a('ok')];
      const { agentId } = await store.createAgentWithMessages({}, stored);
      expect(await store.findStoredPrefix([...stored, u('next')])).toEqual({ agentId, shared: 5, storedLength: 5 });
      expect(await store.findStoredPrefix(stored)).toEqual({ agentId, shared: 5, storedLength: 5 });
      expect(await store.findStoredPrefix([system, u('plan'), a('where?'), u('Porto')])).toEqual({ agentId, shared: 3, storedLength: 5 });
      expect(await store.findStoredPrefix([system, u('plan'), a('elsewhere')])).toEqual({ agentId, shared: 2, storedLength: 5 });
      expect(await store.findStoredPrefix([system, u('plan')])).toEqual({ agentId, shared: 2, storedLength: 5 });
      expect(await store.findStoredPrefix([system, u('something else')])).toBeUndefined();
      expect(await store.findStoredPrefix([system])).toBeUndefined();
      // A text content is the same message as one text part; provider options and ids are not compared.
      const asParts = stored.map((message): ModelMessage => (message.role === 'user' || message.role === 'assistant'
        ? { ...message, id: 'x', content: [{ type: 'text', text: message.content as string, providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } }] }
        : message));
      expect(await store.findStoredPrefix([...asParts, u('next')])).toEqual({ agentId, shared: 5, storedLength: 5 });
    });

    it('follows forks, clears and rewinds; at an equal prefix the agent the request extends wins', async () => {
      const store = storeOf();
      const { u, a } = tagged();
      const root = await store.createAgent();
      await store.append(root, [u('1'), a('1'), event('mark', 'm'), u('2'), a('2')]);
      const child = await store.fork(root);
      await store.append(child, [u('3'), a('3')]);
      const long = [u('1'), a('1'), u('2'), a('2'), u('3'), a('3'), u('4')];
      expect(await store.findStoredPrefix(long)).toEqual({ agentId: child, shared: 6, storedLength: 6 });
      // Both share four messages: the root's whole history, the fork's first four.
      expect(await store.findStoredPrefix([u('1'), a('1'), u('2'), a('2'), u('5')])).toEqual({ agentId: root, shared: 4, storedLength: 4 });
      // Rewound, the root sees two messages; the fork still shares four.
      await store.append(root, [event('rewind', 'm')]);
      expect(await store.findStoredPrefix([u('1'), a('1'), u('2'), a('2'), u('5')])).toEqual({ agentId: child, shared: 4, storedLength: 6 });
      expect(await store.findStoredPrefix([u('1'), a('1'), u('6')])).toEqual({ agentId: root, shared: 2, storedLength: 2 });
      await store.append(root, [u('7'), a('7')]);
      expect(await store.findStoredPrefix([u('1'), a('1'), u('7'), a('7'), u('8')])).toEqual({ agentId: root, shared: 4, storedLength: 4 });
      // A fork cleared sees only what follows the clear.
      const cleared = await store.fork(child);
      await store.append(cleared, [event('clear'), u('9'), a('9')]);
      expect(await store.findStoredPrefix([u('9'), a('9'), u('10')])).toEqual({ agentId: cleared, shared: 2, storedLength: 2 });
      expect(await store.findStoredPrefix(long)).toEqual({ agentId: child, shared: 6, storedLength: 6 });
      // A mark and a rewind in one append hide what lies between them.
      const { agentId: hiding } = await store.createAgentWithMessages({}, [u('20'), event('mark'), u('21'), a('21'), event('rewind')]);
      expect(await store.findStoredPrefix([u('20'), a('20')])).toEqual({ agentId: hiding, shared: 1, storedLength: 1 });
      expect(await store.findStoredPrefix([u('20'), u('21'), a('21')])).toEqual({ agentId: hiding, shared: 1, storedLength: 1 });
    });

    it('gives a tie between agents that see the same history to the most recently active', async () => {
      const store = storeOf();
      const { u, a } = tagged();
      const history = [u('same'), a('same')];
      await store.createAgentWithMessages({}, history);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const { agentId: second } = await store.createAgentWithMessages({}, history);
      expect(await store.findStoredPrefix([...history, u('more')])).toEqual({ agentId: second, shared: 2, storedLength: 2 });
      await new Promise((resolve) => setTimeout(resolve, 5));
      // A fork sees its parent's history; made last, it is the most recently active.
      const fork = await store.fork(second);
      expect(await store.findStoredPrefix([...history, u('more')])).toEqual({ agentId: fork, shared: 2, storedLength: 2 });
    });
  });
}
