import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyEvents } from '../message/apply-events.js';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import type { Message } from '../message/message.js';
import { HistoryStore } from './history-store.js';
import { describeHistorySearchContract } from './history-search.contract.js';
import { describePrefixIndexContract } from './prefix-index.contract.js';

const user = (content: string): Message => ({ role: 'user', content });
const answer = (content: string): Message => ({ role: 'assistant', content });
const event = (kind: 'clear' | 'mark' | 'rewind', label?: string): Message => (label === undefined ? { role: 'event', kind } : { role: 'event', kind, label });
const call = (id: string): Message => ({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'read_file', input: {} }] });
const result = (id: string): Message => ({ role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: 'read_file', output: { type: 'text', value: 'x' } }] });
/** The code and message of the SlidingContextError `promise` rejects with. */
async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error: unknown = await promise.then(() => undefined, (caught: unknown) => caught);
  if (!(error instanceof SlidingContextError)) throw new Error(`expected a SlidingContextError, got ${String(error)}`);
  return { code: error.code, message: error.message };
}
/** Expects `promise` to be refused with `code`, its message naming `where`. */
async function expectRefusal(promise: Promise<unknown>, code: string, where: string): Promise<void> {
  const refused = await refusal(promise);
  expect(refused.code).toBe(code);
  expect(refused.message).toContain(where);
}
const contents = (messages: readonly Message[]) => messages.map((message) => ('content' in message ? message.content : `[${message.kind}]`));

/**
 * The store contract: every engine (PGlite, a PostgreSQL server) runs these same tests.
 * `open` gives a fresh, empty store; `cleanUp` removes what it made. `abortsMidway: false` for a
 * store that sends a write whole (one reached through the process holding it): an interrupt
 * then stops it only before it is sent.
 */
export function describeHistoryStoreContract(name: string, open: () => Promise<HistoryStore>, options: { concurrency?: boolean; abortsMidway?: boolean } = {}) {
  describe(`HistoryStore contract: ${name}`, () => {
    let store: HistoryStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store.close();
    });

    it('appends with a gapless per-agent seq and replays in order', async () => {
      const agent = await store.createAgent();
      expect(await store.append(agent, [user('one'), answer('1')])).toEqual({ firstSeq: 1, lastSeq: 2, duplicate: false });
      expect(await store.append(agent, [user('two')])).toEqual({ firstSeq: 3, lastSeq: 3, duplicate: false });
      const history = await store.history(agent);
      expect(history.map((entry) => entry.seq)).toEqual([1, 2, 3]);
      expect(contents(history.map((entry) => entry.message))).toEqual(['one', '1', 'two']);
    });

    it('an optimistic append against a stale seq is STALE_WINDOW and writes nothing', async () => {
      const agent = await store.createAgent();
      await store.append(agent, [user('a')], { expectedLastSeq: 0 });
      await expect(store.append(agent, [user('b')], { expectedLastSeq: 0 })).rejects.toMatchObject({ code: 'STALE_WINDOW' });
      expect((await store.history(agent)).length).toBe(1);
    });

    it('a retried append with the same idempotency key writes nothing new', async () => {
      const agent = await store.createAgent();
      const first = await store.append(agent, [user('a'), answer('b')], { idempotencyKey: 'turn-1' });
      expect(await store.append(agent, [user('a'), answer('b')], { idempotencyKey: 'turn-1' })).toEqual({ ...first, duplicate: true });
      expect((await store.history(agent)).length).toBe(2);
    });

    it('names an unknown agent, and rejects a malformed id', async () => {
      await expect(store.append('00000000-0000-4000-8000-000000000000', [user('x')])).rejects.toMatchObject({ code: 'UNKNOWN_AGENT' });
      await expect(store.history('not-an-id')).rejects.toMatchObject({ code: 'UNKNOWN_AGENT' });
    });

    it('BEHAVIOUR 15: a fork sees its parent up to the fork only, and clearing the child leaves the parent alone', async () => {
      const parent = await store.createAgent({ budgetTokens: 5000 });
      await store.append(parent, [user('shared'), answer('ok')]);
      const child = await store.fork(parent);
      await store.append(parent, [user('parent only')]);
      await store.append(child, [user('child only')]);
      expect(contents((await store.history(child)).map((entry) => entry.message))).toEqual(['shared', 'ok', 'child only']);
      await store.append(child, [event('clear'), user('fresh')]);
      expect(contents(applyEvents((await store.history(child)).map((entry) => entry.message)))).toEqual(['fresh']);
      expect(contents((await store.history(parent)).map((entry) => entry.message))).toEqual(['shared', 'ok', 'parent only']);
      const grandchild = await store.fork(child);
      await store.append(grandchild, [user('deep')]);
      expect(contents(applyEvents((await store.history(grandchild)).map((entry) => entry.message)))).toEqual(['fresh', 'deep']);
    });

    it('replay stops at the most recent clear and honours marks and rewinds across the lineage', async () => {
      const parent = await store.createAgent();
      await store.append(parent, [user('old'), event('clear'), user('a'), event('mark', 'm'), user('b')]);
      const child = await store.fork(parent);
      await store.append(child, [user('c'), event('rewind', 'm'), user('d')]);
      const history = await store.history(child);
      expect(history[0]?.message).toEqual(event('clear'));
      expect(contents(applyEvents(history.map((entry) => entry.message)))).toEqual(['a', 'd']);
      // The clear, a, the mark, the rewind and d: what the rewind hid (b, c) is not counted.
      expect(await store.visibleLength(child)).toBe(5);
    });

    it('BEHAVIOUR 11: nothing is deleted: a rewind hides, and the hidden messages stay in the history', async () => {
      const agent = await store.createAgent();
      await store.append(agent, [user('a'), event('mark', 'm'), user('b'), answer('B'), event('rewind', 'm')]);
      const history = await store.history(agent);
      expect(contents(history.map((entry) => entry.message))).toEqual(['a', '[mark]', 'b', 'B', '[rewind]']);
      expect(contents(applyEvents(history.map((entry) => entry.message)))).toEqual(['a']);
    });

    it('reads a window from the end: whole exchanges back to the token mark, never what a rewind hid', async () => {
      const agent = await store.createAgent();
      const messages: Message[] = [{ role: 'system', content: 'system' }];
      for (let index = 0; index < 10; index++) {
        if (index === 5) messages.push(event('mark', 'm'));
        if (index === 7) messages.push(event('rewind', 'm'));
        messages.push(user(`u${index}`), answer(`a${index}`));
      }
      const counts = messages.map((message) => (message.role === 'event' ? null : { tokens: 10, exact: true, method: 'test' }));
      await store.append(agent, messages, { counts, countTarget: { provider: 'p', model: 'm' } });
      const short = await store.windowTail(agent, { minTokens: 50, withFirstExchange: true });
      expect(contents(short.head.map((entry) => entry.message))).toEqual(['system', 'u0', 'a0']);
      expect(contents(short.tail.map((entry) => entry.message))).toEqual(['u7', 'a7', 'u8', 'a8', 'u9', 'a9']);
      expect(short).toMatchObject({ complete: false, marks: ['m'] });
      expect(short.tail[0]).toMatchObject({ agentId: agent, count: { tokens: 10, exact: true, method: 'test', target: 'p/m' } });
      const all = await store.windowTail(agent, { minTokens: Number.POSITIVE_INFINITY, withFirstExchange: false });
      expect(contents(all.head.map((entry) => entry.message))).toEqual(['system']);
      expect(contents(all.tail.map((entry) => entry.message))).toEqual(contents(applyEvents(messages)).slice(1));
      expect(all.complete).toBe(true);
    });

    it('outlines what the model sees without bodies: counts, titles, tool calls and results, across a fork', async () => {
      const parent = await store.createAgent();
      const call = (id: string): Message => ({ role: 'assistant', content: [{ type: 'text', text: 'Checking.' }, { type: 'tool-call', toolCallId: id, toolName: 'read_file', input: { path: 'a.ts' } }] });
      const result = (id: string): Message => ({ role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: 'read_file', output: { type: 'text', value: 'x' } }] });
      const counts = (messages: readonly Message[]) => messages.map((message) => (message.role === 'event' ? null : { tokens: 7, exact: false, method: 'test' }));
      const first = [{ role: 'system', content: 's' } as Message, user('read a.ts'), call('c1'), result('c1'), event('mark', 'm'), user('hidden'), event('rewind', 'm')];
      await store.append(parent, first, { counts: counts(first), countTarget: { provider: 'p', model: 'm' } });
      const child = await store.fork(parent);
      await store.append(child, [{ role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', image: 'https://example.com/a.png' }] }]);
      const outline = await store.outline(child);
      expect(outline.map((entry) => [entry.agentId, entry.seq, entry.role, entry.title])).toEqual([
        [parent, 1, 'system', null],
        [parent, 2, 'user', 'read a.ts'],
        [parent, 3, 'assistant', null],
        [parent, 4, 'tool', null],
        [child, 1, 'user', 'look [image]'],
      ]);
      expect(outline[2]).toMatchObject({ count: { tokens: 7, exact: false, method: 'test', target: 'p/m' }, toolParts: [{ partIndex: 1, type: 'tool-call', toolCallId: 'c1', toolName: 'read_file' }] });
      expect(outline[3]?.toolParts).toEqual([{ partIndex: 0, type: 'tool-result', toolCallId: 'c1', toolName: 'read_file' }]);
      expect(outline[4]).toMatchObject({ count: null, toolParts: [] });
      expect(outline[4]?.createdAt).toBeInstanceOf(Date);
    });

    it('refuses counts that name no model or do not match the messages, and stores nothing', async () => {
      const agent = await store.createAgent();
      const count = { tokens: 1, exact: true, method: 'test' };
      await expect(store.append(agent, [user('a')], { counts: [count] })).rejects.toMatchObject({ code: 'INVALID_OPTION' });
      await expect(store.append(agent, [user('a')], { counts: [], countTarget: { provider: 'p', model: 'm' } })).rejects.toMatchObject({ code: 'INVALID_OPTION' });
      expect(await store.history(agent)).toEqual([]);
    });

    it('records the ranges a window evicted, across a fork', async () => {
      const parent = await store.createAgent();
      await store.append(parent, [user('a'), answer('b')]);
      const child = await store.fork(parent);
      await store.append(child, [user('c')]);
      await store.recordRanges(child, [{ kind: 'evicted', first: { agentId: parent, seq: 1 }, last: { agentId: child, seq: 1 }, data: { exchanges: 2 } }]);
      expect(await store.ranges(child)).toMatchObject([{ kind: 'evicted', first: { agentId: parent, seq: 1 }, last: { agentId: child, seq: 1 }, data: { exchanges: 2 } }]);
      expect(await store.ranges(parent)).toEqual([]);
    });

    it('reads ranges recorded together in one order on every engine: by first seq, then last seq, then kind', async () => {
      const agent = await store.createAgent();
      await store.append(agent, [user('a'), answer('b'), user('c'), answer('d')]);
      const range = (kind: string, first: number, last: number) => ({ kind, first: { agentId: agent, seq: first }, last: { agentId: agent, seq: last } });
      await store.recordRanges(agent, [range('summary', 1, 4), range('evicted', 3, 4), range('evicted', 1, 4), range('evicted', 1, 2)]);
      const read = (await store.ranges(agent)).map((recorded) => `${recorded.kind} ${String(recorded.first.seq)}-${String(recorded.last.seq)}`);
      expect(read).toEqual(['evicted 1-2', 'evicted 1-4', 'summary 1-4', 'evicted 3-4']);
    });

    it('inherits the ranges an ancestor recorded up to the fork, not those after it', async () => {
      const parent = await store.createAgent();
      await store.append(parent, [user('a'), answer('b'), user('c')]);
      await store.recordRanges(parent, [{ kind: 'summary', first: { agentId: parent, seq: 1 }, last: { agentId: parent, seq: 2 }, data: { text: 'before the fork' } }]);
      const child = await store.fork(parent);
      const grandchild = await store.fork(child);
      await new Promise((resolve) => setTimeout(resolve, 5));
      await store.recordRanges(parent, [{ kind: 'summary', first: { agentId: parent, seq: 1 }, last: { agentId: parent, seq: 3 }, data: { text: 'after the fork' } }]);
      await store.recordRanges(child, [{ kind: 'evicted', first: { agentId: parent, seq: 1 }, last: { agentId: parent, seq: 2 }, data: {} }]);
      const texts = async (agentId: string, kind?: string) =>
        (await store.ranges(agentId, { kind, inherited: true })).map((range) => range.data.text ?? range.kind);
      expect(await texts(child, 'summary')).toEqual(['before the fork']);
      expect(await texts(grandchild)).toEqual(['before the fork']);
      expect(await texts(parent, 'summary')).toEqual(['before the fork', 'after the fork']);
      expect(await store.ranges(child, { kind: 'summary' })).toEqual([]);
    });

    it('inherits a range recorded just before the fork, in the same millisecond too', async () => {
      // Timestamps are microseconds in the database: a fork read back as a JS Date (milliseconds) once dropped these.
      for (let round = 0; round < 20; round++) {
        const parent = await store.createAgent();
        await store.append(parent, [user('a'), answer('b')]);
        await store.recordRanges(parent, [{ kind: 'summary', first: { agentId: parent, seq: 1 }, last: { agentId: parent, seq: 2 }, data: { text: `round ${round}` } }]);
        const child = await store.fork(parent);
        expect((await store.ranges(child, { inherited: true })).map((range) => range.data.text)).toEqual([`round ${round}`]);
      }
    });

    it('lists agents with their counts and parents', async () => {
      const agent = await store.createAgent();
      await store.append(agent, [user('x')], { counts: [{ tokens: 12, exact: true, method: 'o200k_base' }], countTarget: { provider: 'openai', model: 'gpt-4o' } });
      const child = await store.fork(agent);
      const listed = await store.listAgents();
      expect(listed.find((entry) => entry.agentId === agent)).toMatchObject({ parentId: null, messages: 1, tokens: 12 });
      expect(listed.find((entry) => entry.agentId === child)).toMatchObject({ parentId: agent, messages: 0 });
    });

    it('creates an agent with no messages, and an append of none stores nothing', async () => {
      const { agentId } = await store.createAgentWithMessages({}, []);
      expect(await store.history(agentId)).toEqual([]);
      await store.append(agentId, [user('first')]);
      expect((await store.history(agentId)).map((row) => row.seq)).toEqual([1]);
    });

    it.skipIf(options.abortsMidway === false)('creates an agent with its messages in one transaction: aborted midway, no agent is left', async () => {
      const messages = Array.from({ length: 1500 }, (_, index) => (index % 2 === 0 ? user(`q${index}`) : answer(`a${index}`)));
      const before = (await store.listAgents()).length;
      const interrupt = new AbortController();
      const onProgress = () => {
        interrupt.abort();
      };
      await expect(store.createAgentWithMessages({ budgetTokens: 1000 }, messages, { onProgress, signal: interrupt.signal })).rejects.toMatchObject({ code: 'ABORTED' });
      expect((await store.listAgents()).length).toBe(before);
      const created = await store.createAgentWithMessages({ budgetTokens: 1000 }, messages);
      expect(created).toMatchObject({ firstSeq: 1, lastSeq: 1500, duplicate: false });
      expect(await store.agentMeta(created.agentId)).toEqual({ budgetTokens: 1000 });
      expect((await store.history(created.agentId)).length).toBe(1500);
      // An append aborted midway stores none of its rows either.
      const appending = new AbortController();
      const onAppendProgress = () => {
        appending.abort();
      };
      await expect(store.append(created.agentId, messages, { onProgress: onAppendProgress, signal: appending.signal })).rejects.toMatchObject({ code: 'ABORTED' });
      expect((await store.history(created.agentId)).length).toBe(1500);
    });

    it('refuses a tool result that would be stored apart from its call, reading only the exchange it joins', async () => {
      const agent = await store.createAgent();
      await store.append(agent, [user('read a.ts'), call('c1')]);
      // A second writer slips a user message in between the call and its result.
      await store.append(agent, [user('meanwhile')]);
      await expectRefusal(store.append(agent, [result('c1')]), 'ORPHANED_TOOL_RESULT', 'messages[0].content[0]');
      await expectRefusal(store.append(agent, [answer('ok'), result('c1')]), 'ORPHANED_TOOL_RESULT', 'messages[1].content[0]');
      expect((await store.history(agent)).length).toBe(3);
      // In the exchange of its call the result is stored, across a fork too, and a second result is refused.
      await store.append(agent, [call('c2')]);
      const child = await store.fork(agent);
      await store.append(child, [result('c2')]);
      // Which of the two depends on the pairing rule; refused either way.
      expect((await refusal(store.append(child, [result('c2')]))).code).toMatch(/^(DUPLICATE|ORPHANED)_TOOL_RESULT$/);
      // A call a rewind hid, or one before a clear, pairs with nothing.
      await store.append(child, [user('next'), event('mark', 'm'), call('c3'), event('rewind', 'm')]);
      await expect(store.append(child, [result('c3')])).rejects.toMatchObject({ code: 'ORPHANED_TOOL_RESULT' });
      await expectRefusal(store.append(child, [call('c4'), event('clear'), result('c4')]), 'ORPHANED_TOOL_RESULT', 'messages[2]');
      expect((await store.history(child)).map((entry) => entry.seq).at(-1)).toBe(5);
    });

    it('stores NUL characters and lone surrogates exactly, wherever they are', async () => {
      const odd = 'nul \u0000 high \ud800 low \udc00 escape \u0001 pair \ud83d\ude00';
      const messages: Message[] = [
        { role: 'system', content: odd },
        user(odd),
        { role: 'assistant', content: [{ type: 'text', text: odd }, { type: 'tool-call', toolCallId: 'call-odd', toolName: 'run', input: { [odd]: [odd, { nested: odd }] } }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call-odd', toolName: 'run', output: { type: 'text', value: odd } }] },
        event('mark', odd),
        user('hidden'),
        event('rewind', odd),
      ];
      const agent = await store.createAgent({ system: odd });
      await store.append(agent, messages);
      expect((await store.history(agent)).map((entry) => entry.message)).toEqual(messages);
      expect(await store.agentMeta(agent)).toEqual({ system: odd });
      expect((await store.windowTail(agent, { minTokens: 0, withFirstExchange: false })).marks).toEqual([odd]);
      expect(await store.visibleLength(agent)).toBe(6);
      const child = await store.fork(agent, { note: odd });
      expect(await store.agentMeta(child)).toEqual({ system: odd, note: odd });
      // An update merges into the meta; a key changed to null is removed. The parent keeps its own.
      await store.updateAgentMeta(child, { note: null, model: odd });
      expect(await store.agentMeta(child)).toEqual({ system: odd, model: odd });
      expect(await store.agentMeta(agent)).toEqual({ system: odd });
      await store.recordRanges(agent, [{ kind: 'summary', first: { agentId: agent, seq: 2 }, last: { agentId: agent, seq: 4 }, data: { text: odd } }]);
      expect((await store.ranges(agent))[0]?.data).toEqual({ text: odd });
      const title = (await store.outline(agent)).find((entry) => entry.role === 'user')?.title;
      expect(title).toBe(odd.replace('\u0000', '\ufffd').replace('\ud800 ', '\ufffd ').replace('\udc00', '\ufffd'));
    });

    it('property: any string, NUL and lone surrogates included, reads back exactly as appended', async () => {
      // Any UTF-16 code units, with NUL, the store's escape character and lone surrogates often.
      const codeUnit = fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.constantFrom(0, 1, 0xd800, 0xdbff, 0xdc00, 0xdfff));
      const codeUnits = fc.array(codeUnit, { maxLength: 24 }).map((units) => units.map((unit) => String.fromCharCode(unit)).join(''));
      const text = fc.oneof(codeUnits, fc.string({ unit: 'binary', maxLength: 24 }));
      const agent = await store.createAgent();
      let seq = 0;
      await fc.assert(
        fc.asyncProperty(text, text, async (content, key) => {
          const messages: Message[] = [user(content), { role: 'assistant', content: [{ type: 'text', text: key }, { type: 'tool-call', toolCallId: `p${seq}`, toolName: 'f', input: { [key]: content } }] }];
          const { firstSeq } = await store.append(agent, messages);
          seq = firstSeq + 1;
          const stored = (await store.history(agent)).slice(firstSeq - 1).map((entry) => entry.message);
          expect(stored).toEqual(messages);
        }),
        { numRuns: 40 },
      );
    });

    it('refuses a tool call id or tool name longer than the store indexes, naming the message and field, and stores nothing', async () => {
      const agent = await store.createAgent();
      const long = 'x'.repeat(8192);
      await expectRefusal(store.append(agent, [user('a'), call(long)]), 'INVALID_MESSAGE', 'messages[1].content[0].toolCallId is 8192 characters long; the store keeps at most 512');
      await expectRefusal(store.append(agent, [user('a'), call('nul\u0000id')]), 'INVALID_MESSAGE', 'messages[1].content[0].toolCallId');
      await expect(store.append(agent, [user('a')], { idempotencyKey: long })).rejects.toMatchObject({ code: 'INVALID_OPTION' });
      expect(await store.history(agent)).toEqual([]);
      const longest = 'y'.repeat(512);
      await store.append(agent, [user('a'), call(longest), result(longest)]);
      expect((await store.outline(agent))[1]?.toolParts.map((part) => part.toolCallId)).toEqual([longest]);
    });

    describeHistorySearchContract(() => store);
    describePrefixIndexContract(() => store);

    if (options.concurrency) {
      // 50 appends each are enough to interleave the writers: without the agent's row lock (a
      // server) or the session queue (PGlite) this fails. 500 each took 30 s on two cores: the
      // store benchmarks race 4 × 500 (`npm run bench -- --only store`).
      it('4 writers × 50 appends to one agent: seqs gapless, nothing lost', async () => {
        const agent = await store.createAgent();
        await Promise.all(Array.from({ length: 4 }, async (_, writer) => {
          for (let index = 0; index < 50; index++) await store.append(agent, [user(`${writer}:${index}`)]);
        }));
        const history = await store.history(agent);
        expect(history.map((entry) => entry.seq)).toEqual(Array.from({ length: 200 }, (_, index) => index + 1));
        expect(new Set(history.map((entry) => JSON.stringify(entry.message))).size).toBe(200);
      }, 120_000);
    }
  });
}
