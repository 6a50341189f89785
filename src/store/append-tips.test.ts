import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { Message } from '../message/message.js';
import { createServerDatabase } from '../testing/server-database.js';
import { checkPairing } from '../exchange/check-pairing.js';
import { AppendTips, openExchangeAfter, pairingSkeleton } from './append-tips.js';
import { HistoryStore } from './history-store.js';

const user = (content: string): Message => ({ role: 'user', content });
const answer = (content: string): Message => ({ role: 'assistant', content });
const call = (id: string): Message => ({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'read_file', input: {} }] });
const result = (id: string): Message => ({ role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: 'read_file', output: { type: 'text', value: 'x' } }] });
const tip = (lastSeq: number) => ({ lastSeq, prefix: { digest: '', length: 0 }, openExchange: undefined });

const directory = mkdtempSync(join(tmpdir(), 'sliding-context-tips-'));
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

describe('the exchange an append joins next', () => {
  it('starts at the batch\'s last exchange start, continues a known one, and is unknown after an event', () => {
    const skeletons = (messages: Message[]) => messages.map(pairingSkeleton);
    expect(openExchangeAfter(undefined, [user('a'), call('c1'), user('b'), call('c2')])).toEqual(skeletons([user('b'), call('c2')]));
    expect(openExchangeAfter(skeletons([user('a'), call('c1')]), [result('c1')])).toEqual(skeletons([user('a'), call('c1'), result('c1')]));
    expect(openExchangeAfter(undefined, [result('c1')])).toBeUndefined();
    expect(openExchangeAfter([user('a')], [answer('b'), { role: 'event', kind: 'mark', label: 'm' }])).toBeUndefined();
  });

  it('keeps of each message only what pairing reads: its role and its tool parts\' ids and names', () => {
    const long = 'x'.repeat(10_000);
    const step: Message = { role: 'assistant', content: [{ type: 'text', text: long }, { type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: long } }] };
    expect(JSON.stringify(pairingSkeleton(step)).length).toBeLessThan(200);
    expect(pairingSkeleton({ role: 'user', content: [{ type: 'text', text: long }] })).toEqual({ role: 'user', content: '' });
  });

  it('property: pairing finds the same problems in the skeletons as in the messages', () => {
    const ids = fc.constantFrom('c1', 'c2');
    const text = fc.string({ maxLength: 4 });
    const toolResult = ids.map((id) => ({ type: 'tool-result' as const, toolCallId: id, toolName: 'read_file', output: { type: 'text' as const, value: 'x' } }));
    const message: fc.Arbitrary<Message> = fc.oneof(
      text.map(user),
      fc.array(fc.oneof(text.map((value) => ({ type: 'text' as const, text: value })), toolResult), { minLength: 1, maxLength: 2 }).map((content): Message => ({ role: 'user', content })),
      text.map(answer),
      fc.array(fc.oneof(text.map((value) => ({ type: 'text' as const, text: value })), ids.map((id) => ({ type: 'tool-call' as const, toolCallId: id, toolName: 'read_file', input: {} }))), { minLength: 1, maxLength: 3 })
        .map((content): Message => ({ role: 'assistant', content })),
      fc.array(toolResult, { minLength: 1, maxLength: 2 }).map((content): Message => ({ role: 'tool', content })),
    );
    fc.assert(
      fc.property(fc.array(message, { maxLength: 10 }), (messages) => {
        const found = (list: readonly Message[]) => checkPairing(list).map(({ code, messageIndex, toolCallId }) => ({ code, messageIndex, toolCallId }));
        expect(found(messages.map(pairingSkeleton))).toEqual(found(messages));
      }),
      { numRuns: 500 },
    );
  });

  it('is not kept past 2,000 messages: a longer one is read from the store', () => {
    const long = Array.from({ length: 2000 }, (_, index) => answer(String(index)));
    expect(openExchangeAfter([user('a')], long)).toBeUndefined();
    expect(openExchangeAfter([], long)).toHaveLength(2000);
  });
});

describe('the tips kept', () => {
  it('gives a tip once, keeps the latest of an agent, and forgets the least recent past 256 agents', () => {
    const tips = new AppendTips();
    tips.keep('a', tip(5));
    tips.keep('a', tip(3));
    expect(tips.take('a')?.lastSeq).toBe(5);
    expect(tips.take('a')).toBeUndefined();
    for (let index = 0; index <= 256; index++) tips.keep(`agent ${String(index)}`, tip(index));
    expect(tips.take('agent 0')).toBeUndefined();
    expect(tips.take('agent 1')?.lastSeq).toBe(1);
    expect(tips.take('agent 256')?.lastSeq).toBe(256);
  });
});

/** The statements `work` issued on a store opened with the SQL log on `file`. */
async function statementsOf(file: string, work: () => Promise<unknown>): Promise<string[]> {
  writeFileSync(file, '');
  await work();
  return readFileSync(file, 'utf8').split('\n').filter((line) => line !== '').map((line) => (JSON.parse(line) as { sql: string }).sql);
}

const serverUrl = process.env.DATABASE_URL;
const databases: { drop(): Promise<void> }[] = [];
afterAll(async () => {
  for (const database of databases) await database.drop();
});

const engines: [string, () => Promise<HistoryStore>, boolean][] = [
  ['PGlite', () => HistoryStore.open({ dataDir: mkdtempSync(join(directory, 'store-')) }), true],
  [
    'a PostgreSQL server',
    async () => {
      const database = await createServerDatabase(serverUrl ?? '', 'tips');
      databases.push(database);
      return HistoryStore.open({ databaseUrl: database.url });
    },
    serverUrl !== undefined && serverUrl !== '',
  ],
];

for (const [engine, open, runs] of engines) {
  describe.skipIf(!runs)(`appends from the tip, on ${engine}${runs ? '' : ' (skipped: DATABASE_URL is not set)'}`, () => {
    it('read nothing once the store has appended to the agent: a user turn, an answer, a tool call and its result', async () => {
      const file = join(directory, `${engine}.sql.jsonl`);
      process.env.SLIDING_CONTEXT_SQL_LOG = file;
      const store = await open().finally(() => {
        delete process.env.SLIDING_CONTEXT_SQL_LOG;
      });
      try {
        const agent = await store.createAgent();
        const first = await statementsOf(file, () => store.append(agent, [user('read a.ts')]));
        expect(first.some((sql) => sql.includes('for update'))).toBe(true);
        for (const batch of [[call('c1')], [result('c1'), answer('done')], [user('next')]]) {
          const statements = await statementsOf(file, () => store.append(agent, batch));
          expect(statements.filter((sql) => /^\s*select/i.test(sql) && !/pg_notify|pg_advisory/.test(sql))).toEqual([]);
          expect(statements.some((sql) => sql.includes('"last_seq" = $'))).toBe(true);
        }
        expect((await store.history(agent)).map((entry) => entry.seq)).toEqual([1, 2, 3, 4, 5]);
      } finally {
        await store.close();
      }
    });

    it('property: an append from the tip is stored, or refused, exactly as one made the long way', async () => {
      const store = await open();
      try {
        // Few ids and labels, many calls and results: most results have a call somewhere, in or out of sight.
        const ids = fc.constantFrom('c1', 'c2');
        const labels = fc.constantFrom('m1', 'm2');
        const message: fc.Arbitrary<Message> = fc.oneof(
          { arbitrary: fc.string({ maxLength: 8 }).map(user), weight: 2 },
          { arbitrary: fc.string({ maxLength: 8 }).map(answer), weight: 1 },
          { arbitrary: ids.map(call), weight: 3 },
          { arbitrary: ids.map(result), weight: 3 },
          { arbitrary: labels.map((label): Message => ({ role: 'event', kind: 'mark', label })), weight: 1 },
          { arbitrary: labels.map((label): Message => ({ role: 'event', kind: 'rewind', label })), weight: 1 },
          { arbitrary: fc.constant<Message>({ role: 'event', kind: 'clear' }), weight: 2 },
        );
        let key = 0;
        await fc.assert(
          fc.asyncProperty(fc.array(fc.array(message, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 16 }), async (batches) => {
            const [fast, slow] = [await store.createAgent(), await store.createAgent()];
            for (const batch of batches) {
              const outcome = async (agent: string, options = {}) => store.append(agent, batch, options).then(({ firstSeq, lastSeq }) => ({ firstSeq, lastSeq }), (error: unknown) => ({ refused: (error as { code?: unknown }).code }));
              // An idempotency key makes an append go the long way, reading the agent and the exchange it joins.
              expect(await outcome(fast)).toEqual(await outcome(slow, { idempotencyKey: `long way ${String(key++)}` }));
            }
            const stored = async (agent: string) => (await store.history(agent)).map((entry) => entry.message);
            expect(await stored(fast)).toEqual(await stored(slow));
          }),
          {
            numRuns: 60,
            // A call hidden by a clear, or by a rewind, that a result then names.
            examples: [
              [[[user('a')], [call('c1'), { role: 'event', kind: 'clear' }], [result('c1')]]],
              [[[user('a'), { role: 'event', kind: 'mark', label: 'm1' }], [call('c1')], [{ role: 'event', kind: 'rewind', label: 'm1' }], [result('c1')]]],
            ],
          },
        );
      } finally {
        await store.close();
      }
    }, 120_000);
  });
}

describe.skipIf(!serverUrl)('a stale tip, on a PostgreSQL server', () => {
  it('another writer appended since: the append goes the long way, checked against what is stored', async () => {
    const database = await createServerDatabase(serverUrl ?? '', 'stale_tip');
    const [first, second] = await Promise.all([HistoryStore.open({ databaseUrl: database.url }), HistoryStore.open({ databaseUrl: database.url })]);
    try {
      const agent = await first.createAgent();
      await first.append(agent, [user('read a.ts'), call('c1')]);
      // Unknown to the first store, whose tip still has the call open.
      await second.append(agent, [user('meanwhile')]);
      await expect(first.append(agent, [result('c1')])).rejects.toMatchObject({ code: 'ORPHANED_TOOL_RESULT' });
      expect(await first.append(agent, [user('after')])).toEqual({ firstSeq: 4, lastSeq: 4, duplicate: false });
      // The first store's tip is at seq 4 now; the second moves the agent on again.
      await second.append(agent, [answer('ok')]);
      expect(await first.append(agent, [user('again')])).toEqual({ firstSeq: 6, lastSeq: 6, duplicate: false });
      const stored = (await second.history(agent)).map((entry) => [entry.seq, 'content' in entry.message ? entry.message.content : '']);
      expect(stored.filter(([, content]) => typeof content === 'string')).toEqual([[1, 'read a.ts'], [3, 'meanwhile'], [4, 'after'], [5, 'ok'], [6, 'again']]);
    } finally {
      await Promise.all([first.close(), second.close()]);
      await database.drop();
    }
  });
});
