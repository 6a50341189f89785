import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Message } from '../message/message.js';
import { HistoryStore } from '../store/history-store.js';
import { loadTokenCounter } from '../tokens/load-token-counter.js';
import { openConversation } from './conversation.js';

const counter = await loadTokenCounter();
const directory = mkdtempSync(join(tmpdir(), 'sliding-context-conversation-'));
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

const turn = (i: number, size = 400): Message[] => [
  { role: 'user', content: `Request ${i}: ${'please look at this carefully '.repeat(size / 30)}` },
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: `call_${i}`, toolName: 'read_file', input: { path: `src/${i}.ts` } }] },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: `call_${i}`, toolName: 'read_file', output: { type: 'text', value: `export const value${i} = ${i};\n`.repeat(size / 25) } }] },
  { role: 'assistant', content: `Done with ${i}.` },
];

describe('Conversation', () => {
  it('stores every message, slides the window, and gives a provider-shaped request within budget', async () => {
    const store = await HistoryStore.open({ memory: true });
    const conversation = await openConversation({ store, provider: 'anthropic', model: 'claude-sonnet-4-5', counter, budgetTokens: 1500, system: 'You are terse.' });
    for (let i = 0; i < 10; i++) {
      await conversation.append(turn(i));
      await conversation.endTurn();
    }
    const { request, report } = await conversation.request();
    expect(report.totalTokens).toBeLessThanOrEqual(1500);
    expect(report.evictedExchanges).toBeGreaterThan(0);
    expect(request).toMatchObject({ model: 'claude-sonnet-4-5', system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }] });
    expect((request as { messages: { role: string }[] }).messages[0]?.role).toBe('user');
    expect((await store.history(conversation.agentId)).length).toBe(40);
    const history = await conversation.history();
    expect(history.map((exchange) => exchange.inWindow)).toEqual(report.exchanges.map((exchange) => exchange.inWindow));
    expect(history[0]).toMatchObject({ title: expect.stringContaining('Request 0'), tools: ['read_file'], firstSeq: 1 });
    await store.close();
  });

  it('keeps memory in proportion to the window in a long session: what it evicted is let go, the request unchanged', async () => {
    const store = await HistoryStore.open({ memory: true });
    const conversation = await openConversation({ store, provider: 'openai', model: 'gpt-4o', counter, budgetTokens: 1500 });
    let held = 0;
    for (let i = 0; i < 320; i++) {
      await conversation.append(turn(i, 120));
      await conversation.endTurn();
      held = Math.max(held, (await conversation.request()).report.exchanges.length);
    }
    // 320 exchanges taken, never more than the window and 256 evicted ones held.
    expect(held).toBeLessThan(280);
    expect(held).toBeGreaterThan(256);
    const reopened = await openConversation({ store, agentId: conversation.agentId, provider: 'openai', model: 'gpt-4o', counter });
    expect((await conversation.request()).request).toEqual((await reopened.request()).request);
    expect(await conversation.history()).toHaveLength(320);
    await store.close();
  });

  it('BEHAVIOUR 5: content appended mid-turn counts before the next call is made', async () => {
    const store = await HistoryStore.open({ memory: true });
    const conversation = await openConversation({ store, provider: 'openai', model: 'gpt-4o', counter, budgetTokens: 2000 });
    for (let i = 0; i < 3; i++) {
      await conversation.append(turn(i));
      await conversation.endTurn();
    }
    const before = (await conversation.request()).report;
    // A long tool loop within one turn: each result is counted before the next request.
    await conversation.append([{ role: 'user', content: 'Read the big file' }, { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'big', toolName: 'read_file', input: {} }] }]);
    await conversation.append([{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'big', toolName: 'read_file', output: { type: 'text', value: 'line of code\n'.repeat(400) } }] }]);
    const after = (await conversation.request()).report;
    expect(after.totalTokens).toBeLessThanOrEqual(2000);
    expect(after.evictedExchanges).toBeGreaterThan(before.evictedExchanges);
    expect(after.exchanges.at(-1)?.inWindow).toBe(true);
    await store.close();
  });

  it('BEHAVIOUR 13: after a restart the window and its cutoff are the same', async () => {
    const dataDir = join(directory, 'restart');
    const first = await HistoryStore.open({ dataDir });
    const conversation = await openConversation({ store: first, provider: 'openai', model: 'gpt-4o', counter, budgetTokens: 1200, pinFirstExchange: true });
    for (let i = 0; i < 8; i++) await conversation.append(turn(i));
    await conversation.mark('here');
    await conversation.append(turn(8));
    const before = (await conversation.request()).report;
    const historyBefore = await conversation.history();
    await first.close();
    const second = await HistoryStore.open({ dataDir });
    // The budget and pinning come back from the agent: only its id is needed to resume.
    const resumed = await openConversation({ store: second, agentId: conversation.agentId, provider: 'openai', model: 'gpt-4o', counter });
    const after = (await resumed.request()).report;
    // Resuming reads only the window's end of the history, and sends exactly the same request.
    expect(after.partial).toBe(true);
    expect(after.messages).toEqual(before.messages);
    expect(after.totalTokens).toBe(before.totalTokens);
    const historyAfter = await resumed.history();
    expect(historyAfter).toEqual(historyBefore);
    expect(historyAfter.filter((exchange) => !exchange.inWindow).length).toBeGreaterThan(0);
    await second.close();
  });

  it('BEHAVIOUR 15: a fork inherits the settings, and pruning or clearing it never changes the parent', async () => {
    const store = await HistoryStore.open({ memory: true });
    const parent = await openConversation({ store, provider: 'openai', model: 'gpt-4o', counter, budgetTokens: 900, system: 'Parent rules.' });
    for (let i = 0; i < 4; i++) await parent.append(turn(i));
    const parentBefore = (await parent.request()).report;
    const child = await parent.fork();
    expect((await child.request()).report).toMatchObject({ budgetTokens: 900, totalTokens: parentBefore.totalTokens });
    for (let i = 10; i < 16; i++) await child.append(turn(i));
    await child.clear();
    await child.append(turn(20));
    expect((await child.request()).report.exchanges).toHaveLength(1);
    // The parent's window is as it was; its cut, asked again, is kept where it was.
    const { cut: cutBefore, ...windowBefore } = parentBefore;
    const { cut, ...windowAfter } = (await parent.request()).report;
    expect(windowAfter).toEqual(windowBefore);
    expect(cut).toMatchObject({ exchange: cutBefore.exchange, moved: false });
    await store.close();
  });

  it('clear keeps the system messages the history starts with, stored again after it, and drops the rest', async () => {
    const store = await HistoryStore.open({ memory: true });
    const conversation = await openConversation({ store, provider: 'openai', model: 'gpt-4o', counter, budgetTokens: 0 });
    await conversation.append([{ role: 'system', content: 'You are the release manager.' }, ...turn(1)]);
    await conversation.clear();
    const { request, report } = await conversation.request();
    expect(report.exchanges).toHaveLength(0);
    expect(request).toMatchObject({ messages: [{ role: 'system', content: 'You are the release manager.' }] });
    expect((request as { messages: unknown[] }).messages).toHaveLength(1);
    // Replay starts at the clear: the clear and the prompt stored again after it.
    expect((await store.history(conversation.agentId)).map((entry) => entry.message.role)).toEqual(['event', 'system']);
    await store.close();
  });

  it('rewind removes what followed the mark from the window, and the store keeps it', async () => {
    const store = await HistoryStore.open({ memory: true });
    const conversation = await openConversation({ store, provider: 'openai', model: 'gpt-4o', counter, budgetTokens: 0 });
    await conversation.append(turn(1));
    await conversation.mark('before');
    await conversation.append(turn(2));
    await conversation.rewind('before');
    expect((await conversation.request()).report.exchanges).toHaveLength(1);
    expect((await store.history(conversation.agentId)).length).toBe(10);
    await expect(conversation.rewind('nowhere')).rejects.toMatchObject({ code: 'UNKNOWN_MARK' });
    expect((await store.history(conversation.agentId)).length).toBe(10);
    await store.close();
  });

  it('a tool call id reused after its call was answered is a new call, kept as sent; one reused while open is refused', async () => {
    const store = await HistoryStore.open({ memory: true });
    const first = await openConversation({ store, provider: 'openai', model: 'gpt-4o', counter, budgetTokens: 1500 });
    for (let i = 0; i < 20; i++) await first.append(turn(i));
    // Reopened, it reads only the newest exchanges: call_0 lies in the part it never loaded.
    const reopened = await openConversation({ store, agentId: first.agentId, provider: 'openai', model: 'gpt-4o', counter });
    await reopened.append(turn(0));
    expect((await store.history(first.agentId)).length).toBe(84);
    const request = JSON.stringify((await reopened.request()).request);
    expect(request.match(/"call_0"/g)).toHaveLength(2);
    // A second call of an id whose call is still open cannot be told apart from the first.
    const open: Message[] = [
      { role: 'user', content: 'Read both.' },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_x', toolName: 'read_file', input: { path: 'a.ts' } }] },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_x', toolName: 'read_file', input: { path: 'b.ts' } }] },
    ];
    await expect(reopened.append(open)).rejects.toMatchObject({ code: 'DUPLICATE_TOOL_CALL_ID', message: expect.stringContaining('content[0]: tool call id "call_x" is used by an earlier tool call that has no result yet') });
    expect((await store.history(first.agentId)).length).toBe(84);
    await store.close();
  });

  it('a refused message is stored nowhere and the window is unchanged', async () => {
    const store = await HistoryStore.open({ memory: true });
    const conversation = await openConversation({ store, provider: 'openai', model: 'gpt-4o', counter });
    await conversation.append(turn(1));
    const before = (await conversation.request()).report;
    await expect(conversation.append([{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'ghost', toolName: 'f', output: { type: 'text', value: 'x' } }] }])).rejects.toMatchObject({ code: 'ORPHANED_TOOL_RESULT' });
    expect((await store.history(conversation.agentId)).length).toBe(4);
    expect((await conversation.request()).report).toEqual(before);
    await store.close();
  });

  it('reported usage anchors the next count: the reported figure plus what is new', async () => {
    const store = await HistoryStore.open({ memory: true });
    const conversation = await openConversation({ store, provider: 'anthropic', model: 'claude-sonnet-4-5', counter, budgetTokens: 0 });
    await conversation.append(turn(1));
    await conversation.request();
    await conversation.endTurn({ usage: { input_tokens: 100, cache_read_input_tokens: 900, cache_creation_input_tokens: 0, output_tokens: 20 } });
    expect((await conversation.request()).report.calibrated).toMatchObject({ tokens: 1000, method: 'reported+usage' });
    await conversation.append([{ role: 'user', content: 'one more thing' }]);
    expect((await conversation.request()).report.calibrated.tokens).toBeGreaterThan(1000);
    await store.close();
  });
});

describe('Conversation ranges and usage', () => {
  it('BEHAVIOUR 11: evictions are recorded as ranges, and a rewind past them brings back what they hid', async () => {
    const store = await HistoryStore.open({ memory: true });
    const conversation = await openConversation({ store, provider: 'openai', model: 'gpt-4o', counter, budgetTokens: 1500 });
    await conversation.append(turn(0));
    await conversation.mark('after the first');
    for (let i = 1; i < 8; i++) {
      await conversation.append(turn(i));
      await conversation.endTurn();
    }
    const ranges = await store.ranges(conversation.agentId);
    expect(ranges[0]).toMatchObject({ kind: 'evicted', first: { agentId: conversation.agentId, seq: 1 }, data: { reason: 'budget' } });
    expect((await conversation.history())[0]).toMatchObject({ inWindow: false, title: expect.stringContaining('Request 0') });
    await conversation.rewind('after the first');
    const { report } = await conversation.request();
    expect(report.messages[0]).toEqual(turn(0)[0]);
    expect((await conversation.history()).map((exchange) => exchange.inWindow)).toEqual([true]);
    // The record stays, and so does every message.
    expect(await store.ranges(conversation.agentId)).toEqual(ranges);
    expect((await store.history(conversation.agentId)).length).toBe(8 * 4 + 2);
    await store.close();
  });

  it('when the provider reads more than we counted, the next windows keep the difference free', async () => {
    const store = await HistoryStore.open({ memory: true });
    const conversation = await openConversation({ store, provider: 'openai', model: 'gpt-4o', counter, budgetTokens: 3000, policy: { name: 'budget' } });
    for (let i = 0; i < 20; i++) {
      await conversation.append(turn(i, 150));
      await conversation.endTurn();
    }
    const first = (await conversation.request()).report;
    await conversation.endTurn({ usage: { prompt_tokens: first.totalTokens + 600, completion_tokens: 12 } });
    await conversation.append(turn(20, 150));
    const second = (await conversation.request()).report;
    expect(second.totalTokens).toBeLessThanOrEqual(3000 - 600);
    expect(second.calibrated.tokens).toBeLessThanOrEqual(3000);
    // Without the reported difference, the same history fills more of the budget.
    const unadjusted = (await conversation.history()).filter((exchange) => exchange.inWindow).length;
    expect(second.exchanges.filter((exchange) => exchange.inWindow).length).toBeLessThan(unadjusted);
    expect((await store.ranges(conversation.agentId)).length).toBeGreaterThan(0);
    await store.close();
  });
});
