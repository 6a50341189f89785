import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSettings } from '../../conversation/agent-settings.js';
import type { Message } from '../../message/message.js';
import { HistoryStore } from '../../store/history-store.js';
import { parseConversationInput } from '../read-conversation-input.js';
import { exportAgentHistory } from './export-history.js';
import { readExportLines } from './history-jsonl.js';

const fixture = (path: string) => readFileSync(new URL(`../../providers/__fixtures__/${path}`, import.meta.url), 'utf8');
/** One fixture of each wire format, as providers send them. */
const fixtures = [
  ['openai-chat', 'openai-chat/parallel-tool-calls.json'],
  ['openai-responses', 'openai-responses/function-calling.json'],
  ['anthropic', 'anthropic/tool-use.json'],
  ['google', 'google/function-calling.json'],
  ['ai-sdk', 'ai-sdk/tool-loop.json'],
] as const;

let store: HistoryStore;
beforeAll(async () => {
  store = await HistoryStore.open({ memory: true });
}, 120_000);
afterAll(async () => {
  await store.close();
});

/** Stores a conversation as `import` does: its system prompt and tools in the agent's meta, its messages appended. */
async function importInto(input: { system?: string | undefined; tools?: unknown; messages: readonly Message[] }): Promise<string> {
  const agentId = await store.createAgent({ provider: 'openai', model: 'gpt-4o', ...(input.system === undefined ? {} : { system: input.system }), ...(input.tools === undefined ? {} : { tools: input.tools }) });
  await store.append(agentId, input.messages);
  return agentId;
}
const storedOf = async (agentId: string) => ({
  messages: (await store.history(agentId, { acrossClears: true })).map((entry) => entry.message),
  settings: agentSettings(await store.agentMeta(agentId)),
});

describe('export and import give back the same history', () => {
  it.each(fixtures)('%s: import → export → import into a fresh agent → the same messages, system prompt and tools', async (format, path) => {
    const input = parseConversationInput(fixture(path), path, format);
    const first = await importInto(input);
    const exported = await exportAgentHistory(store, first, format);
    expect(exported.eventsLeftOut).toEqual({});
    const again = parseConversationInput(exported.text, 'the export', format);
    const second = await importInto(again);
    const [before, after] = [await storedOf(first), await storedOf(second)];
    expect(after.messages).toEqual(before.messages);
    expect(after.settings.system).toEqual(before.settings.system);
    expect(after.settings.tools).toEqual(before.settings.tools);
  });

  it('jsonl keeps every event and what a clear or rewind hid; a wire format says which events it left out', async () => {
    const input = parseConversationInput(fixture('anthropic/tool-use.json'), 'tool-use.json', 'anthropic');
    const first = await importInto(input);
    const turn = (text: string): Message[] => [{ role: 'user', content: `ask ${text}` }, { role: 'assistant', content: `answer ${text}` }];
    await store.append(first, [{ role: 'event', kind: 'mark', label: 'a' }, ...turn('hidden'), { role: 'event', kind: 'rewind', label: 'a' }, { role: 'event', kind: 'clear' }, ...turn('after')]);
    const exported = await exportAgentHistory(store, first, 'jsonl');
    const lines = exported.text.trimEnd().split('\n');
    expect(lines).toHaveLength(1 + 4 + 1 + 2 + 2 + 2);
    const again = readExportLines(lines, 'the export');
    const second = await importInto(again);
    const [before, after] = [await storedOf(first), await storedOf(second)];
    expect(after.messages).toEqual(before.messages);
    expect(after.messages.flatMap((message) => (message.role === 'event' ? [message.kind] : []))).toEqual(['mark', 'rewind', 'clear']);
    expect(after.settings).toEqual(before.settings);
    const wire = await exportAgentHistory(store, first, 'openai-chat');
    expect(wire).toMatchObject({ eventsLeftOut: { mark: 1, rewind: 1, clear: 1 }, hiddenMessagesLeftOut: 6, messages: 2 });
  });
});
