import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyEvents } from '../message/apply-events.js';
import type { ModelMessage } from '../message/message.js';
import { HistoryStore } from '../store/history-store.js';
import { bytesPerTokenCounter } from '../tokens/bytes-per-token-counter.js';
import { ConversationRegistry } from './conversation-registry.js';
import { messageFingerprint } from './find-conversation-by-prefix.js';
import { copyMessageContent, frozenMessageCopy, sameMessageContent } from './same-message-content.js';

let store: HistoryStore;
beforeAll(async () => {
  store = await HistoryStore.open({ memory: true });
});
afterAll(async () => {
  await store.close();
});

const call = { provider: 'openai', model: 'gpt-4o', counter: bytesPerTokenCounter, tools: undefined, name: undefined };
const text = fc.string({ minLength: 1, maxLength: 12 });
const userMessage = text.map((said): ModelMessage => ({ role: 'user', content: [{ type: 'text', text: said }] }));
const assistantMessage = text.map((said): ModelMessage => ({ role: 'assistant', content: [{ type: 'text', text: said }] }));
/** A history of whole exchanges (user, then assistant), each with a unique opening so that runs never join. */
const history = fc.array(fc.tuple(userMessage, assistantMessage), { minLength: 2, maxLength: 8 }).map((pairs) => pairs.flat());

async function visible(agentId: string): Promise<ModelMessage[]> {
  return applyEvents((await store.history(agentId)).map((row) => row.message));
}

async function parentOf(agentId: string): Promise<string | null | undefined> {
  return (await store.listAgents()).find((agent) => agent.agentId === agentId)?.parentId;
}

describe('message comparison', () => {
  it('agrees with fingerprint equality on any JSON content, ignoring ids and provider options', () => {
    const content = fc.jsonValue({ maxDepth: 3 });
    const message = fc.record({ role: fc.constantFrom('user', 'assistant'), content, id: fc.option(fc.string(), { nil: undefined }) });
    fc.assert(fc.property(message, message, (a, b) => {
      const [left, right] = [a as ModelMessage, b as ModelMessage];
      expect(sameMessageContent(left, right)).toBe(messageFingerprint(left) === messageFingerprint(right));
      expect(sameMessageContent(left, copyMessageContent(left))).toBe(true);
      const frozen = frozenMessageCopy(left);
      expect(frozen).toEqual(left);
      expect(copyMessageContent(frozen)).toBe(frozen);
      expect(sameMessageContent(frozen, right)).toBe(messageFingerprint(left) === messageFingerprint(right));
      expect(sameMessageContent({ ...left, providerOptions: { openai: { itemId: 'x' } } }, right)).toBe(messageFingerprint(left) === messageFingerprint(right));
    }));
  });
  it('keeps a content key named __proto__ as data in its copies (a counterexample fast-check found)', () => {
    const withKey = JSON.parse('{"role":"user","content":{"__proto__":""}}') as ModelMessage;
    const empty: ModelMessage = { role: 'user', content: {} } as unknown as ModelMessage;
    expect(sameMessageContent(withKey, copyMessageContent(withKey))).toBe(true);
    expect(sameMessageContent(frozenMessageCopy(withKey), withKey)).toBe(true);
    expect(sameMessageContent(copyMessageContent(withKey), empty)).toBe(false);
    expect(Object.keys(copyMessageContent(withKey).content)).toEqual(['__proto__']);
  });
});

describe('placement of an open conversation', () => {
  it('continues a pure append, and forks on any change to a message it already holds', { timeout: 120_000 }, async () => {
    let run = 0;
    await fc.assert(fc.asyncProperty(history, fc.array(fc.oneof(userMessage, assistantMessage), { minLength: 1, maxLength: 4 }), fc.nat(), text, async (base, tail, at, replacement) => {
      run++;
      const registry = new ConversationRegistry(store, { format: 'neutral', client: 'test' });
      // A unique first message: every run is a conversation of its own.
      const sent: ModelMessage[] = [{ role: 'user', content: [{ type: 'text', text: `run ${String(run)}` }] }, ...base];
      const first = await registry.place(sent, call);
      const agentId = first.conversation.agentId;

      const appended = [...sent, ...tail];
      const continued = await registry.place(appended, call);
      expect(continued.conversation.agentId).toBe(agentId);
      expect(await visible(agentId)).toEqual(appended);

      // A message the agent holds, changed in place in the caller's objects, or replaced by another one.
      const index = at % appended.length;
      const original = appended[index] as ModelMessage;
      // String content where the original's is a list of parts: never equal to it.
      const changed = { ...original, content: `${replacement} (edited)` } as ModelMessage;
      const edited = [...appended.slice(0, index), changed, ...appended.slice(index + 1), ...tail];
      const forked = await registry.place(edited, call);
      expect(forked.conversation.agentId).not.toBe(agentId);
      // The first message changed shares nothing: a new conversation; any later one: a fork.
      expect(await parentOf(forked.conversation.agentId)).toBe(index === 0 ? null : agentId);
      expect(await visible(forked.conversation.agentId)).toEqual(edited);
      expect(await visible(agentId)).toEqual(appended);
    }), { numRuns: 25 });
  });

  it('does not take a caller\'s later change to its own message objects for what was sent', async () => {
    const registry = new ConversationRegistry(store, { format: 'neutral', client: 'test' });
    const question: ModelMessage = { role: 'user', content: [{ type: 'text', text: 'mutable question' }] };
    const first = await registry.place([question, { role: 'assistant', content: [{ type: 'text', text: 'answer' }] }], call);
    const part = (question.content as { text: string }[])[0];
    if (part) part.text = 'rewritten question';
    const again = await registry.place([question, { role: 'assistant', content: [{ type: 'text', text: 'answer' }] }, { role: 'user', content: 'next' }], call);
    expect(again.conversation.agentId).not.toBe(first.conversation.agentId);
  });
});
