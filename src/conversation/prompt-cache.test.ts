import { describe, expect, it } from 'vitest';
import type { ModelMessage } from '../message/message.js';
import { cacheUsageByExchange, PromptCacheTracker, sharedLeadingMessages } from './prompt-cache.js';

const user = (text: string): ModelMessage => ({ role: 'user', content: text });
const assistant = (text: string): ModelMessage => ({ role: 'assistant', content: text });
const root = '619d0724-a2d6-4895-924b-4d55220526e7';

describe('the prompt cache as a conversation tracks it', () => {
  it('counts the leading messages two requests share, by content', () => {
    const before = [user('a'), assistant('b'), user('c')];
    expect(sharedLeadingMessages(before, [...before, assistant('d'), user('e')])).toBe(3);
    expect(sharedLeadingMessages(before, [user('a'), assistant('B'), user('c')])).toBe(1);
    expect(sharedLeadingMessages(before, before.map((message) => ({ ...message })))).toBe(3);
    expect(sharedLeadingMessages([], before)).toBe(0);
  });

  it('hints the key (the root agent, which its forks share) always, and the stable prefix once a request was made', () => {
    const tracker = new PromptCacheTracker(`${root}:9d81e7b7-65b9-46fd-b777-40acbc5c2dbb`);
    expect(tracker.hints([user('a')])).toEqual({ key: root });
    expect(tracker.hints([user('a'), assistant('b'), user('c')])).toEqual({ key: root, stablePrefixMessages: 1 });
    // The window slid: the first message left.
    expect(tracker.hints([assistant('b'), user('c')])).toEqual({ key: root, stablePrefixMessages: 0 });
  });

  it('adds up a turn\'s requests, counting the usage given at its end once', () => {
    const tracker = new PromptCacheTracker(`${root}:9d81e7b7-65b9-46fd-b777-40acbc5c2dbb`);
    const first = { input_tokens: 10, cache_read_input_tokens: 900, cache_creation_input_tokens: 90 };
    const second = { input_tokens: 5, cache_read_input_tokens: 990, cache_creation_input_tokens: 5 };
    expect(tracker.noted({ usage: first })).toEqual({ usage: first });
    tracker.noted({ usage: second });
    expect(tracker.endTurn(second)).toEqual({ requests: 2, inputTokens: 2_000, cacheReadTokens: 1_890, cacheWriteTokens: 95 });
    expect(tracker.endTurn(undefined)).toBeUndefined();
    expect(tracker.endTurn({ prompt_tokens: 2_048, prompt_tokens_details: { cached_tokens: 1_024 } })).toEqual({ requests: 1, inputTokens: 2_048, cacheReadTokens: 1_024, cacheWriteTokens: 0 });
  });

  it('gives each exchange the figures recorded at its messages', () => {
    const exchanges = [{ agentId: 'p', firstSeq: 1 }, { agentId: 'p', firstSeq: 5 }, { agentId: 'c', firstSeq: 1 }];
    const usage = { requests: 1, inputTokens: 100, cacheReadTokens: 80, cacheWriteTokens: 10 };
    const byExchange = cacheUsageByExchange(exchanges, [
      { at: { agentId: 'p', seq: 4 }, usage },
      { at: { agentId: 'p', seq: 6 }, usage },
      { at: { agentId: 'p', seq: 8 }, usage },
      { at: { agentId: 'c', seq: 2 }, usage },
      { at: { agentId: 'x', seq: 2 }, usage },
    ]);
    expect(byExchange.get('p:1')).toEqual(usage);
    expect(byExchange.get('p:5')).toEqual({ requests: 2, inputTokens: 200, cacheReadTokens: 160, cacheWriteTokens: 20 });
    expect(byExchange.get('c:1')).toEqual(usage);
    expect(byExchange.size).toBe(3);
  });
});
