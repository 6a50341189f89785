import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { isSlidingContextError } from '../errors/sliding-context-error.js';
import { HistoryStore } from '../store/history-store.js';
import { importConversation, type ImportProgress } from '../store/index.js';

const fixture = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');
const store = await HistoryStore.open({ memory: true });
afterAll(() => store.close());

describe('importConversation', () => {
  it('imports a Claude Code transcript from its lines: the format detected, broken lines and left-out lines reported, the rest stored', async () => {
    const progress: ImportProgress[] = [];
    const lines = fixture('../sources/__fixtures__/claude-code-session.jsonl').split('\n');
    const result = await importConversation(store, { lines, source: 'session.jsonl' }, { name: 'from-claude', onProgress: (event) => progress.push(event) });
    expect(result).toMatchObject({
      format: 'claude-code',
      detected: true,
      messages: 13,
      skipped: { 'side-chain': 2, 'abandoned branch': 1 },
      countTarget: { provider: 'anthropic', model: 'claude-sonnet-4-5-20250929' },
    });
    expect(result.brokenLines.map((broken) => broken.line)).toEqual([13, 19]);
    expect(result.lastSeq).toBeGreaterThan(0);
    expect(progress[0]).toMatchObject({ stage: 'read', messages: 13, brokenLines: result.brokenLines });
    expect(progress.at(-1)).toMatchObject({ stage: 'storing', total: 13 });
    const listed = (await store.listAgents()).find((agent) => agent.agentId === result.agentId);
    expect(listed).toMatchObject({ messages: 13, name: 'from-claude' });
  });

  it('refuses a transcript with a broken line under strict, storing nothing', async () => {
    const before = (await store.listAgents()).length;
    const text = fixture('../sources/__fixtures__/claude-code-session.jsonl');
    const refused = importConversation(store, { text, source: 'session.jsonl' }, { strict: true });
    await expect(refused).rejects.toMatchObject({ code: 'INVALID_TRANSCRIPT', message: expect.stringMatching(/^session\.jsonl line 13: /) });
    expect((await store.listAgents()).length).toBe(before);
  });

  it('imports a parsed OpenAI Chat body, then syncs the same body grown by a turn: only the new messages are appended', async () => {
    const body = JSON.parse(fixture('../providers/__fixtures__/openai-chat/parallel-tool-calls.json')) as { messages: unknown[] };
    const first = await importConversation(store, { body });
    expect(first).toMatchObject({ format: 'openai-chat', detected: true, brokenLines: [], skipped: {}, countTarget: { provider: 'openai', model: 'gpt-4o' } });
    const held = (await store.history(first.agentId)).length;
    expect(held).toBe(first.messages);
    const grown = { ...body, messages: [...body.messages, { role: 'user', content: 'And in Berlin?' }] };
    const synced = await importConversation(store, { body: grown }, { agentId: first.agentId, sync: true });
    expect(synced).toMatchObject({ agentId: first.agentId, messages: 1, sync: { appendedMessages: 1 } });
    expect(await store.history(first.agentId)).toHaveLength(held + 1);
  });

  it('refuses options that cannot go together, and a format it does not know, with a code', async () => {
    await expect(importConversation(store, { body: [] }, { sync: true })).rejects.toMatchObject({ code: 'INVALID_OPTION' });
    const error: unknown = await importConversation(store, { text: '[]' }, { format: 'cohere' as never }).catch((caught: unknown) => caught);
    expect(isSlidingContextError(error, 'INVALID_OPTION')).toBe(true);
  });
});
