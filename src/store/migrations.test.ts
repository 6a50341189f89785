import { randomUUID } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import fc from 'fast-check';
import { Kysely, Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { exchangeTitle } from '../exchange/describe-exchange.js';
import { startsExchange } from '../exchange/detect-exchanges.js';
import { toolCallsOf, toolResultsOf } from '../exchange/tool-parts.js';
import { findConversationByReading } from '../conversation/find-conversation-by-prefix.js';
import type { Message, ModelMessage } from '../message/message.js';
import { formatAgentId, parseAgentId } from './agent-id.js';
import { listAgents } from './agents.js';
import type { DatabaseSchema } from './database-schema.js';
import { findStoredPrefix } from './find-stored-prefix.js';
import { readHistory } from './lineage.js';
import { migrationProvider } from './migrations.js';
import { fillSearchText } from './search-text-fill.js';
import { pgliteDialect } from './pglite-dialect.js';

// Well-formed text of any script, emoji included; PostgreSQL text holds no NUL.
const text = fc
  .oneof(fc.string({ unit: 'grapheme', maxLength: 20 }), fc.string({ unit: 'grapheme', minLength: 150, maxLength: 400 }))
  .map((value) => value.replaceAll('\u0000', ''));
const id = fc.stringMatching(/^call_[a-z0-9]{1,8}$/);
const messageArbitrary: fc.Arbitrary<Message> = fc.oneof(
  text.map((content): Message => ({ role: 'user', content })),
  fc
    .array(fc.oneof(text.map((value) => ({ type: 'text' as const, text: value })), fc.constant({ type: 'image' as const, image: 'https://example.com/a.png' })), { maxLength: 4 })
    .map((content): Message => ({ role: 'user', content })),
  fc
    .array(fc.oneof(text.map((value) => ({ type: 'text' as const, text: value })), fc.tuple(id, fc.constantFrom('read_file', 'run_command')).map(([toolCallId, toolName]) => ({ type: 'tool-call' as const, toolCallId, toolName, input: {} }))), { maxLength: 4 })
    .map((content): Message => ({ role: 'assistant', content })),
  fc
    .array(id.map((toolCallId) => ({ type: 'tool-result' as const, toolCallId, toolName: 'read_file', output: { type: 'text' as const, value: 'ok' } })), { minLength: 1, maxLength: 3 })
    .chain((results) => fc.constantFrom<Message>({ role: 'tool', content: results }, { role: 'user', content: results })),
  fc.constant<Message>({ role: 'system', content: 'Be brief.' }),
);

describe('migration 003 (titles and tool parts)', () => {
  it('fills rows stored before it with the titles and tool parts an append would write', async () => {
    const client = await PGlite.create();
    const db = new Kysely<DatabaseSchema>({ dialect: pgliteDialect(client) });
    try {
      const migrator = new Migrator({ db, provider: migrationProvider });
      expect((await migrator.migrateTo('2026-11-21-002-counts-and-range-ends')).error).toBeUndefined();
      const messages = fc.sample(messageArbitrary, { numRuns: 400, seed: 3 });
      const rootId = randomUUID();
      await db
        .insertInto('messages')
        .values(
          messages.map((message, index) => ({
            root_id: rootId,
            agent_id: rootId,
            seq: index + 1,
            kind: message.role,
            body: JSON.stringify(message),
            tokens: null,
            count_target: null,
            count_method: null,
            count_exact: null,
            starts_exchange: startsExchange(message),
            idempotency_key: null,
          })),
        )
        .execute();
      expect((await migrator.migrateToLatest()).error).toBeUndefined();

      const titles = await db.selectFrom('messages').select(['seq', 'title']).orderBy('seq').execute();
      expect(titles.map((row) => row.title)).toEqual(messages.map((message) => (startsExchange(message) ? exchangeTitle(message) : null)));
      const parts = await db.selectFrom('tool_parts').select(['seq', 'part_index', 'type', 'tool_call_id', 'tool_name']).orderBy('seq').orderBy('part_index').execute();
      const expected = messages.flatMap((message, index) =>
        [...toolCallsOf(message), ...toolResultsOf(message)]
          .sort((a, b) => a.partIndex - b.partIndex)
          .map(({ part, partIndex }) => ({ seq: index + 1, part_index: partIndex, type: part.type, tool_call_id: part.toolCallId, tool_name: part.toolName })),
      );
      expect(parts).toEqual(expected);
      // The generator reaches what matters: long titles, astral characters, parts of each kind.
      expect(messages.some((message) => startsExchange(message) && Array.from(exchangeTitle(message)).length === 200)).toBe(true);
      expect(titles.some((row) => row.title !== null && /[\u{10000}-\u{10FFFF}]/u.test(row.title))).toBe(true);
      expect(parts.some((part) => part.type === 'tool-result') && parts.some((part) => part.type === 'tool-call')).toBe(true);
    } finally {
      await db.destroy();
    }
  }, 60_000);
});

describe('migrations 2026-11-26-001 and 2026-11-27-001 (message search)', () => {
  it('makes the rows stored before them searchable, keeps their search text, and fills a row written after them', async () => {
    const client = await PGlite.create();
    const db = new Kysely<DatabaseSchema>({ dialect: pgliteDialect(client) });
    try {
      const migrator = new Migrator({ db, provider: migrationProvider });
      expect((await migrator.migrateTo('2026-11-24-004-escaped-json')).error).toBeUndefined();
      const rootId = randomUUID();
      const messages: Message[] = [
        { role: 'user', content: 'before qalpha1 the migration' },
        { role: 'assistant', content: [{ type: 'text', text: 'reading' }, { type: 'tool-call', toolCallId: 'c', toolName: 'qbeta2_tool', input: { path: 'a b', note: 'qgamma3' } }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c', toolName: 'read_file', output: { type: 'json', value: { lines: ['x', 'qdelta4'] } } }] },
        { role: 'user', content: [{ type: 'tool-result', toolCallId: 'd', toolName: 'read_file', output: { type: 'content', value: [{ type: 'text', text: 'qepsilon5\nnext' }, { type: 'media', data: 'qzeta6', mediaType: 'image/png' }] } }] },
        { role: 'assistant', content: [{ type: 'reasoning', text: 'qeta7' }, { type: 'text', text: 'line one\nqtheta8' }] },
      ];
      const row = (message: Message, seq: number) => ({
        root_id: rootId, agent_id: rootId, seq, kind: message.role, body: JSON.stringify(message),
        tokens: null, count_target: null, count_method: null, count_exact: null, starts_exchange: startsExchange(message), idempotency_key: null,
      });
      await db.insertInto('messages').values(messages.map((message, index) => row(message, index + 1))).execute();
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      await db.insertInto('messages').values(row({ role: 'user', content: 'after qiota9 it' }, 6)).execute();
      // Since 2026-11-27-001 the search text is a row of its own, written after the message's.
      const searched = async () => (await sql<{ seq: number }>`select seq from message_search order by seq`.execute(db)).rows.map((hit) => hit.seq);
      expect(await searched()).toEqual([1, 2, 3, 4, 5]);
      await fillSearchText(db, { rootId, id: rootId }, 6, 6);
      expect(await searched()).toEqual([1, 2, 3, 4, 5, 6]);
      const found = async (word: string) => (await sql<{ seq: number }>`select seq from message_search where search @@ to_tsquery('english', ${word}) order by seq`.execute(db)).rows.map((hit) => hit.seq);
      expect(await found('qalpha1')).toEqual([1]);
      // Tool names and arguments of calls, and every kind of tool output, are searched.
      expect(await found('qbeta2_tool')).toEqual([2]);
      expect(await found('qgamma3')).toEqual([2]);
      expect(await found('qdelta4')).toEqual([3]);
      expect(await found('qepsilon5')).toEqual([4]);
      expect(await found('qtheta8')).toEqual([5]);
      expect(await found('qiota9')).toEqual([6]);
      // Media data and reasoning are not.
      expect(await found('qzeta6')).toEqual([]);
      expect(await found('qeta7')).toEqual([]);
    } finally {
      await db.destroy();
    }
  }, 60_000);
});

describe('migration 2026-11-26-002 (prefix digests)', () => {
  it('fills the index for histories stored before it: the lookup then finds what reading every history finds', async () => {
    const client = await PGlite.create();
    const db = new Kysely<DatabaseSchema>({ dialect: pgliteDialect(client) });
    try {
      const migrator = new Migrator({ db, provider: migrationProvider });
      expect((await migrator.migrateTo('2026-11-24-004-escaped-json')).error).toBeUndefined();
      const u = (text: string): ModelMessage => ({ role: 'user', content: text });
      const a = (text: string): ModelMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });
      const [root, child, grandchild] = [randomUUID(), randomUUID(), randomUUID()];
      // A root; a fork of it after a2 that rewinds into the root's messages; a fork of that which clears.
      const stored: [id: string, parent: string | null, forkSeq: number | null, lineage: string[], messages: Message[]][] = [
        [root, null, null, [], [u('q1'), a('a1'), { role: 'event', kind: 'mark', label: 'm' }, u('q2'), a('a2'), u('q3')]],
        [child, root, 5, [root], [{ role: 'event', kind: 'rewind', label: 'm' }, u('q4'), a('a4')]],
        [grandchild, child, 3, [root, child], [u('q5'), { role: 'event', kind: 'clear' }, u('q6'), a('a6')]],
      ];
      for (const [id, parent, forkSeq, lineage, messages] of stored) {
        await db.insertInto('agents').values({ root_id: root, id, parent_id: parent, fork_seq: forkSeq, lineage: JSON.stringify(lineage), last_seq: messages.length, meta: '{}', name: null }).execute();
        await db.insertInto('messages').values(messages.map((message, index) => ({
          root_id: root, agent_id: id, seq: index + 1, kind: message.role === 'event' ? message.kind : message.role, body: JSON.stringify(message),
          tokens: null, count_target: null, count_method: null, count_exact: null, starts_exchange: startsExchange(message), title: null, idempotency_key: null,
        }))).execute();
      }
      expect((await migrator.migrateToLatest()).error).toBeUndefined();

      const reading = { listAgents: () => listAgents(db), history: (agentId: string) => readHistory(db, parseAgentId(agentId), false), fork: () => Promise.reject(new Error('no fork here')) };
      const [rootId, childId, grandchildId] = [root, child, grandchild].map((id) => formatAgentId({ rootId: root, id }));
      const cases: [ModelMessage[], unknown][] = [
        [[u('q1'), a('a1'), u('q2'), a('a2'), u('q3'), a('next')], { agentId: rootId, shared: 5, storedLength: 5 }],
        [[u('q1'), a('a1'), u('q4'), a('a4'), u('next')], { agentId: childId, shared: 4, storedLength: 4 }],
        [[u('q6'), a('a6'), u('next')], { agentId: grandchildId, shared: 2, storedLength: 2 }],
        [[u('q1'), a('a1'), u('q2'), a('a2'), u('other')], { agentId: rootId, shared: 4, storedLength: 5 }],
        [[u('q1'), a('a1'), u('q4'), a('other')], { agentId: childId, shared: 3, storedLength: 4 }],
        [[u('q5')], undefined],
      ];
      for (const [sent, expected] of cases) {
        expect(await findStoredPrefix(db, sent)).toEqual(expected);
        expect(await findConversationByReading(reading, sent)).toEqual(expected);
      }
      const tips = await db.selectFrom('agents').select(['id', 'prefix_length']).execute();
      expect(Object.fromEntries(tips.map((row) => [row.id, row.prefix_length]))).toEqual({ [root]: 5, [child]: 4, [grandchild]: 2 });
    } finally {
      await db.destroy();
    }
  }, 180_000);
});
