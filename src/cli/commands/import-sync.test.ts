import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConversationInput } from '../read-conversation-input.js';
import { buildRequest } from '../../providers/wire-format.js';
import type { ModelMessage } from '../../message/message.js';
import { HistoryStore } from '../../store/history-store.js';
import { runCli } from '../_test-cli.js';

const directory = mkdtempSync(join(tmpdir(), 'sliding-context-import-sync-'));
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});
const fixture = readFileSync(new URL('../../providers/__fixtures__/anthropic/tool-use.json', import.meta.url), 'utf8');
const body = JSON.parse(fixture) as { messages: unknown[] };
/** The same conversation one turn later: a second question, a tool call and its result, the answer. */
const grown = {
  ...body,
  messages: [
    ...body.messages,
    { role: 'user', content: 'And in Paris?' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_02paris', name: 'get_weather', input: { location: 'Paris' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_02paris', content: '12 degrees' }] },
    { role: 'assistant', content: 'It is 54°F in Paris.' },
  ],
};

describe('import --sync', () => {
  it('appends only what a grown body adds, in its own format or another; refuses a body that diverges or changes the system prompt', async () => {
    const dataDir = join(directory, 'store');
    const flags = ['--data-dir', dataDir];
    const files = { 'turn-1.json': fixture, 'turn-2.json': JSON.stringify(grown) };
    const { agentId } = JSON.parse((await runCli(['import', 'turn-1.json', '--json', ...flags], { files })).stdout) as { agentId: string };
    const synced = JSON.parse((await runCli(['import', 'turn-2.json', '--agent', agentId, '--sync', '--json', ...flags], { files })).stdout) as { messages: number; sync: unknown };
    expect(synced).toMatchObject({ messages: 4, sync: { heldMessages: 4, appendedMessages: 4 } });
    // The same body again holds nothing new.
    const again = JSON.parse((await runCli(['import', 'turn-2.json', '--agent', agentId, '--sync', '--json', ...flags], { files })).stdout) as { messages: number };
    expect(again.messages).toBe(0);

    const diverged = { ...grown, messages: grown.messages.map((message, index) => (index === 2 ? { role: 'user', content: 'Something else entirely' } : message)) };
    await expect(runCli(['import', '-', '--agent', agentId, '--sync', ...flags], { stdin: JSON.stringify(diverged) })).rejects.toMatchObject({
      code: 'SYNC_DIVERGED',
      message: expect.stringContaining('messages[2]'),
    });

    // The conversation one more turn on, sent as an OpenAI Chat body: same system prompt and tools.
    const neutral = parseConversationInput(JSON.stringify(grown), 'grown', 'anthropic');
    const later = [...neutral.messages, { role: 'user', content: 'Thanks!' }, { role: 'assistant', content: 'You are welcome.' }] as ModelMessage[];
    const openai = buildRequest('openai-chat', { model: 'gpt-4o', system: neutral.system, tools: neutral.tools, messages: later });
    const crossed = JSON.parse((await runCli(['import', '-', '--agent', agentId, '--sync', '--json', ...flags], { stdin: JSON.stringify(openai) })).stdout) as { format: string; messages: number };
    expect(crossed).toMatchObject({ format: 'openai-chat', messages: 2 });
    const otherSystem = buildRequest('openai-chat', { model: 'gpt-4o', system: 'You are a pirate.', tools: neutral.tools, messages: [...later, { role: 'user', content: 'More?' }] });
    await expect(runCli(['import', '-', '--agent', agentId, '--sync', ...flags], { stdin: JSON.stringify(otherSystem) })).rejects.toMatchObject({ code: 'SYNC_SETTINGS_CHANGED' });
    await expect(runCli(['import', 'turn-2.json', '--sync', ...flags], { files })).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringContaining('--agent') });

    // Nothing refused was stored: the agent holds the conversation once, in order, and its system prompt.
    const store = await HistoryStore.open({ dataDir });
    try {
      expect((await store.history(agentId)).map((entry) => entry.message)).toEqual(later);
      expect((await store.agentMeta(agentId)).system).toBe(neutral.system);
    } finally {
      await store.close();
    }
  }, 600_000);
});
