import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelMessage } from '../message/message.js';
import { HistoryStore } from '../store/history-store.js';
import { findConversationByPrefix, messageFingerprint, placeByPrefix } from './find-conversation-by-prefix.js';

const system: ModelMessage = { role: 'system', content: 'Be brief.' };
const user = (text: string): ModelMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): ModelMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });

let store: HistoryStore;
beforeAll(async () => {
  store = await HistoryStore.open({ memory: true });
});
afterAll(async () => {
  await store.close();
});

/** Places `messages` and appends what the placement says, as a caller of the rule does. */
async function place(messages: readonly ModelMessage[]) {
  const placement = await placeByPrefix(store, messages, () => store.createAgent({}));
  await store.append(placement.agentId, placement.toAppend);
  return placement;
}

describe('the prefix rule', () => {
  it('compares messages without their provider options, ids or key order', () => {
    const plain: ModelMessage = { role: 'assistant', content: [{ type: 'text', text: 'hi' }] };
    const decorated: ModelMessage = { id: 'm1', content: [{ text: 'hi', type: 'text', providerOptions: { openai: { itemId: 'x' } } }], role: 'assistant' };
    expect(messageFingerprint(decorated)).toBe(messageFingerprint(plain));
    expect(messageFingerprint(assistant('hi'))).not.toBe(messageFingerprint(assistant('hello')));
  });

  it('takes a text content for the same as one text part, as Claude Code sends its user message one way, then the other', () => {
    const asBlock: ModelMessage = { role: 'user', content: [{ type: 'text', text: 'Read summary.txt', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } }] };
    expect(messageFingerprint({ role: 'user', content: 'Read summary.txt' })).toBe(messageFingerprint(asBlock));
    expect(messageFingerprint({ role: 'user', content: 'Read summary.txt' })).not.toBe(messageFingerprint({ role: 'user', content: [{ type: 'text', text: 'Read summary' }, { type: 'text', text: '.txt' }] }));
  });

  it('starts a conversation, continues it with only the new messages, and forks one that diverges from its middle', async () => {
    const first = await place([system, user('plan the trip')]);
    expect(first).toMatchObject({ placed: 'created', toAppend: [system, user('plan the trip')] });

    const extended = [system, user('plan the trip'), assistant('Where to?'), user('Lisbon')];
    const second = await place(extended);
    expect(second).toEqual({ agentId: first.agentId, placed: 'continued', toAppend: [assistant('Where to?'), user('Lisbon')] });

    // The user edits their second message: the request shares the first exchange, then diverges.
    const edited = [system, user('plan the trip'), assistant('Where to?'), user('Porto')];
    const fork = await place(edited);
    expect(fork.placed).toBe('forked');
    expect(fork.agentId).not.toBe(first.agentId);
    expect(fork.toAppend).toEqual([{ role: 'event', kind: 'clear' }, ...edited]);
    const agents = await store.listAgents();
    expect(agents.find((agent) => agent.agentId === fork.agentId)?.parentId).toBe(first.agentId);

    // Each branch is continued by what extends it.
    expect((await findConversationByPrefix(store, [...edited, assistant('Porto it is.')]))).toEqual({ agentId: fork.agentId, shared: 4, storedLength: 4 });
    expect((await findConversationByPrefix(store, [...extended, assistant('Lisbon it is.')]))).toEqual({ agentId: first.agentId, shared: 4, storedLength: 4 });
  });

  it('joins nothing on a shared system prompt alone', async () => {
    const placement = await place([system, user('something else entirely')]);
    expect(placement.placed).toBe('created');
  });
});
