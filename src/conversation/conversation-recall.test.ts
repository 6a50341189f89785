import { afterAll, describe, expect, it } from 'vitest';
import type { Message, ToolCallPart } from '../message/message.js';
import { HistoryStore } from '../store/history-store.js';
import { loadTokenCounter } from '../tokens/load-token-counter.js';
import { openConversation } from './conversation.js';
import { READ_HISTORY_TOOL, RECALL_TOOL_DEFINITIONS, SEARCH_HISTORY_TOOL } from './recall-tools.js';

const counter = await loadTokenCounter();
const target = { provider: 'openai', model: 'gpt-4o' };
const store = await HistoryStore.open({ memory: true });
afterAll(() => store.close());

const turn = (i: number, lines = 16): Message[] => [
  { role: 'user', content: `Request ${i}: look at module${i} please` },
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: `call_${i}`, toolName: 'read_file', input: { path: `src/module${i}.ts` } }] },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: `call_${i}`, toolName: 'read_file', output: { type: 'text', value: `export const value${i} = ${i};\n`.repeat(lines) } }] },
  { role: 'assistant', content: `Done with ${i}.` },
];
const call = (toolName: string, input: unknown): ToolCallPart => ({ type: 'tool-call', toolCallId: `recall_${toolName}`, toolName, input });
const answerText = (part: { readonly output: { readonly type: string; readonly value: unknown } } | undefined) => String(part?.output.value);

describe('recall in a conversation', () => {
  it('offers search_history and read_history in every request, counted in the budget', async () => {
    const plain = await openConversation({ store, ...target, counter, budgetTokens: 100_000, system: 'Be terse.' });
    const recalling = await openConversation({ store, ...target, counter, budgetTokens: 100_000, system: 'Be terse.', recall: true });
    for (const conversation of [plain, recalling]) await conversation.append(turn(0));
    const [without, withRecall] = await Promise.all([plain.request(), recalling.request()]);
    const toolNames = (request: unknown) => ((request as { tools?: { function: { name: string } }[] }).tools ?? []).map((tool) => tool.function.name);
    expect(toolNames(without.request)).toEqual([]);
    expect(toolNames(withRecall.request)).toEqual([SEARCH_HISTORY_TOOL, READ_HISTORY_TOOL]);
    const definitions = counter.countPreamble({ ...target, system: 'Be terse.', tools: RECALL_TOOL_DEFINITIONS }).tokens - counter.countPreamble({ ...target, system: 'Be terse.' }).tokens;
    expect(withRecall.report.totalTokens - without.report.totalTokens).toBe(definitions);
    expect(await plain.answerRecallCall(call(SEARCH_HISTORY_TOOL, { query: 'module0' }))).toBeUndefined();
    // A fork keeps them.
    const child = await recalling.fork();
    expect(toolNames((await child.request()).request)).toEqual([SEARCH_HISTORY_TOOL, READ_HISTORY_TOOL]);
  });

  it('the model finds an exchange that left the window, and reads a message of it back whole', async () => {
    const conversation = await openConversation({ store, ...target, counter, budgetTokens: 1200, recall: true });
    for (let i = 0; i < 8; i++) {
      await conversation.append(turn(i));
      await conversation.endTurn();
    }
    const { report } = await conversation.request();
    expect(report.exchanges[0]?.inWindow).toBe(false);
    expect(JSON.stringify(report.messages)).not.toContain('module0');
    const found = answerText(await conversation.answerRecallCall(call(SEARCH_HISTORY_TOOL, { query: 'module0' })));
    expect(found).toContain('2 messages match "module0", best first:');
    expect(found).toContain('- exchange #0 · message 1 · user: Request 0: look at module0 please');
    expect(found).toContain('- exchange #0 · message 2 · assistant read_file: [call read_file {"path":"src/module0.ts"}]');
    const read = await conversation.answerRecallCall(call(READ_HISTORY_TOOL, { message: 3 }));
    expect(read).toMatchObject({ type: 'tool-result', toolCallId: 'recall_read_history', toolName: READ_HISTORY_TOOL, output: { type: 'text' } });
    expect(answerText(read)).toBe(`message 3 · exchange #0 · tool\n[result of read_file]\n${'export const value0 = 0;\n'.repeat(16)}`);
  });

  it('a tool output the window cleared is read back by the message its pointer names', async () => {
    const conversation = await openConversation({ store, ...target, counter, budgetTokens: 1500, recall: true, policy: { name: 'clear-tool-outputs', keep: 1, minimumTokens: 0 } });
    await conversation.append([{ role: 'user', content: 'Read every module.' }]);
    for (let i = 0; i < 4; i++) await conversation.append(turn(i, 60).slice(1, 3));
    const { report } = await conversation.request();
    const [cleared] = report.clearedToolOutputs;
    expect(cleared).toBeDefined();
    const pointer = JSON.stringify(report.messages).match(/\[output cleared: \d+ tokens, stored as message (\d+); read_history reads it back\]/);
    expect(pointer?.[1]).toBe(cleared?.storedAs.slice('message '.length));
    const read = answerText(await conversation.answerRecallCall(call(READ_HISTORY_TOOL, { message: Number(pointer?.[1]) })));
    expect(read).toContain(`[result of read_file]\nexport const value${cleared?.toolCallId.slice(5) ?? ''} =`);
  });

  it('answers a bad call with an error the model can act on, and leaves other tools to the caller', async () => {
    const conversation = await openConversation({ store, ...target, counter, budgetTokens: 100_000, recall: { maxTokens: 50 } });
    await conversation.append(turn(0, 80));
    expect(await conversation.answerRecallCall(call('read_file', { path: 'a' }))).toBeUndefined();
    const errors = await Promise.all([
      conversation.answerRecallCall(call(SEARCH_HISTORY_TOOL, {})),
      conversation.answerRecallCall(call(SEARCH_HISTORY_TOOL, { query: ' ' })),
      conversation.answerRecallCall(call(READ_HISTORY_TOOL, { message: 'three' })),
      conversation.answerRecallCall(call(READ_HISTORY_TOOL, { message: 40 })),
    ]);
    expect(errors.map((part) => part?.output.type)).toEqual(['error-text', 'error-text', 'error-text', 'error-text']);
    expect(answerText(errors[3])).toContain('sees no message 40');
    // The cap holds: a long output is cut, and says so.
    const cut = answerText(await conversation.answerRecallCall(call(READ_HISTORY_TOOL, { message: '3' })));
    expect(cut).toContain('over the cap of 50; the rest is stored but not shown]');
    expect(Buffer.byteLength(cut)).toBeLessThan(300);
  });
});
