import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import { startsExchange } from '../exchange/detect-exchanges.js';
import { applyEventsTo } from '../message/apply-events.js';
import type { Message } from '../message/message.js';
import type { HistoryStore } from './history-store.js';

const user = (content: string): Message => ({ role: 'user', content });
const answer = (content: string): Message => ({ role: 'assistant', content });
const event = (kind: 'clear' | 'mark' | 'rewind', label?: string): Message => (label === undefined ? { role: 'event', kind } : { role: 'event', kind, label });
/** A tool round: the call (with `input`) and its result (with `output`). */
const toolRound = (id: string, toolName: string, input: unknown, output: string): Message[] => [
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName, input }] },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName, output: { type: 'text', value: output } }] },
];
/** Expects `promise` to be refused with `code`, its message holding `where`. */
async function expectRefusal(promise: Promise<unknown>, code: string, where: string): Promise<void> {
  const error: unknown = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(SlidingContextError);
  expect(error instanceof SlidingContextError ? [error.code, error.message.includes(where)] : []).toEqual([code, true]);
}
const seqsOf = (search: { readonly hits: readonly { readonly seq: number }[] }) => search.hits.map((hit) => hit.seq).sort((a, b) => a - b);

/** A word no message holds unless it is planted: starts with q, holds a digit (PostgreSQL keeps it whole, unstemmed). */
const plantedToken = fc.tuple(fc.stringMatching(/^[a-z]{6,10}$/), fc.integer({ min: 0, max: 9 })).map(([letters, digit]) => `q${letters}${digit}`);

/** The ways a token is planted in a message: user text, assistant text, a tool call's arguments, a tool's output. */
type Plant = 'user' | 'assistant' | 'call' | 'result' | 'none';

/** One exchange whose messages carry `token` where `plant` says. */
function exchangeWith(token: string, plant: Plant, id: string): Message[] {
  const word = (where: Plant, filler: string) => (plant === where ? `${filler} (${token}) here` : filler);
  return [
    user(word('user', 'Please look at the parser')),
    ...toolRound(id, 'read_file', { path: 'src/parser.ts', note: word('call', 'check it') }, word('result', 'export function parse() {}')),
    answer(word('assistant', 'The parser looks fine')),
  ];
}

/** Operations on an agent tree, applied in order to the store and to a model of what each agent sees. */
type Operation =
  | { readonly kind: 'exchange'; readonly agent: number; readonly plant: Plant }
  | { readonly kind: 'fork'; readonly agent: number }
  | { readonly kind: 'clear' | 'mark' | 'rewind'; readonly agent: number; readonly label: 'a' | 'b' };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('exchange' as const), agent: fc.nat(5), plant: fc.constantFrom<Plant>('user', 'assistant', 'call', 'result', 'none', 'none') }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('fork' as const), agent: fc.nat(5) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('clear' as const, 'mark' as const, 'rewind' as const), agent: fc.nat(5), label: fc.constantFrom('a' as const, 'b' as const) }) },
);

/** A stored message as the model keeps it: who stored it, its seq, and the message. */
interface Placed {
  readonly agentId: string;
  readonly seq: number;
  readonly message: Message;
}

/**
 * Recall, on every engine: `searchHistory` finds what an agent sees of its history (its lineage,
 * from its latest clear, rewinds applied), and `readHistoryMessage` reads one message back whole.
 */
export function describeHistorySearchContract(storeOf: () => HistoryStore) {
  describe('search and read back', () => {
    it('finds a word in user text, assistant text, tool call arguments and tool output, citing the message and its exchange', async () => {
      const store = storeOf();
      const agent = await store.createAgent();
      await store.append(agent, [{ role: 'system', content: 'You are careful.' }, user('Add dueDate to tasks'), answer('Done.')]);
      await store.append(agent, [user('Now the migration'), ...toolRound('c1', 'run_command', { command: 'npm run migrate -- --name addDueDate' }, 'Migration 0042 applied'), answer('The migration ran.')]);
      const byWord = async (query: string) => (await store.searchHistory(agent, query)).hits.map((hit) => [hit.seq, hit.exchange, hit.role, hit.toolNames]);
      expect(await byWord('dueDate')).toEqual([[2, 0, 'user', []]]);
      expect(await byWord('run_command')).toEqual([[5, 1, 'assistant', ['run_command']]]);
      expect(await byWord('addDueDate')).toEqual([[5, 1, 'assistant', ['run_command']]]);
      expect(await byWord('0042')).toEqual([[6, 1, 'tool', ['run_command']]]);
      expect(await byWord('careful')).toEqual([[1, null, 'system', []]]);
      // Stemmed: "migrations" finds "migration", "Migration" and "migrate".
      expect(seqsOf(await store.searchHistory(agent, 'migrations'))).toEqual([4, 5, 6, 7]);
      const [hit] = (await store.searchHistory(agent, '"migration ran"')).hits;
      expect(hit).toMatchObject({ agentId: agent, seq: 7, excerpt: 'The migration ran.' });
      expect(hit?.createdAt).toBeInstanceOf(Date);
      expect(seqsOf(await store.searchHistory(agent, 'migration -applied'))).toEqual([4, 5, 7]);
    });

    it('a long message gives a short excerpt around the word found', async () => {
      const store = storeOf();
      const agent = await store.createAgent();
      const output = `${'line of the log\n'.repeat(400)}error: cannot find module zodiacal\n${'more of the log\n'.repeat(400)}`;
      await store.append(agent, [user('Run the build'), ...toolRound('b', 'run_command', { command: 'npm run build' }, output)]);
      const [hit] = (await store.searchHistory(agent, 'zodiacal')).hits;
      expect(hit?.excerpt).toContain('error: cannot find module zodiacal');
      expect(hit?.excerpt.length).toBeLessThanOrEqual(250);
      expect(hit?.excerpt.startsWith('…') && hit.excerpt.endsWith('…')).toBe(true);
    });

    it('a child sees what it inherited and its own, not its parent\'s later messages nor a sibling\'s', async () => {
      const store = storeOf();
      const parent = await store.createAgent();
      await store.append(parent, [user('shared walrus'), answer('ok')]);
      const child = await store.fork(parent);
      const sibling = await store.fork(parent);
      await store.append(parent, [user('later walrus in the parent'), answer('ok')]);
      await store.append(child, [user('the child walrus'), answer('ok')]);
      await store.append(sibling, [user('the sibling walrus'), answer('ok')]);
      const cited = async (agentId: string) => (await store.searchHistory(agentId, 'walrus')).hits.map((hit) => `${hit.agentId === parent ? 'parent' : hit.agentId === child ? 'child' : 'sibling'}:${hit.seq}:#${String(hit.exchange)}`).sort();
      expect(await cited(child)).toEqual(['child:1:#1', 'parent:1:#0']);
      expect(await cited(sibling)).toEqual(['parent:1:#0', 'sibling:1:#1']);
      expect(await cited(parent)).toEqual(['parent:1:#0', 'parent:3:#1']);
      // An inherited message is read back by the agent that stored it.
      expect(await store.readHistoryMessage(child, 1, { storedBy: parent })).toMatchObject({ agentId: parent, seq: 1, exchange: 0, text: 'shared walrus', truncated: false });
      expect(await store.readHistoryMessage(child, 1)).toMatchObject({ agentId: child, text: 'the child walrus', exchange: 1 });
      await expect(store.readHistoryMessage(child, 3, { storedBy: parent })).rejects.toMatchObject({ code: 'UNKNOWN_MESSAGE' });
    });

    it('what lies before the latest clear or behind a rewind is neither found nor read', async () => {
      const store = storeOf();
      const agent = await store.createAgent();
      await store.append(agent, [user('old heron'), answer('ok'), event('clear'), user('new heron'), answer('ok'), event('mark', 'm'), user('rewound heron'), answer('ok'), event('rewind', 'm')]);
      expect((await store.searchHistory(agent, 'heron')).hits.map((hit) => [hit.seq, hit.exchange])).toEqual([[4, 0]]);
      await expectRefusal(store.readHistoryMessage(agent, 1), 'UNKNOWN_MESSAGE', `Agent ${agent} sees no message 1`);
      await expect(store.readHistoryMessage(agent, 7)).rejects.toMatchObject({ code: 'UNKNOWN_MESSAGE' });
      await expect(store.readHistoryMessage(agent, 99)).rejects.toMatchObject({ code: 'UNKNOWN_MESSAGE' });
      expect((await store.readHistoryMessage(agent, 4)).text).toBe('new heron');
    });

    it('keeps within the token cap and the limit, and says when more match', async () => {
      const store = storeOf();
      const agent = await store.createAgent();
      for (let index = 0; index < 6; index++) await store.append(agent, [user(`otter number ${index} ${'and some words '.repeat(10)}`), answer('ok')]);
      const all = await store.searchHistory(agent, 'otter');
      expect([all.hits.length, all.complete]).toEqual([6, true]);
      expect(all.tokens).toBeLessThanOrEqual(all.maxTokens);
      const capped = await store.searchHistory(agent, 'otter', { maxTokens: 200 });
      expect(capped.hits.length).toBeGreaterThan(0);
      expect(capped.hits.length).toBeLessThan(6);
      expect(capped.complete).toBe(false);
      expect(capped.tokens).toBeLessThanOrEqual(200);
      expect(capped.tokens).toBe(capped.hits.reduce((sum, hit) => sum + Math.ceil(Buffer.byteLength(JSON.stringify(hit)) / 4), 0));
      const limited = await store.searchHistory(agent, 'otter', { limit: 2 });
      expect([limited.hits.length, limited.complete]).toEqual([2, false]);
      // Among equal matches, the newer first.
      expect(limited.hits.map((hit) => hit.seq)).toEqual([11, 9]);
      expect((await store.searchHistory(agent, 'otter', { maxTokens: 1 })).hits).toEqual([]);
    });

    it('reads a message back whole, or cut at the cap with a marker saying so', async () => {
      const store = storeOf();
      const agent = await store.createAgent();
      const output = 'x'.repeat(10_000);
      await store.append(agent, [user('Read it'), ...toolRound('r', 'read_file', { path: 'big.txt' }, output)]);
      const whole = await store.readHistoryMessage(agent, 3, { maxTokens: 10_000 });
      expect(whole).toMatchObject({ seq: 3, exchange: 0, role: 'tool', truncated: false, text: `[result of read_file]\n${output}` });
      expect((await store.readHistoryMessage(agent, 2)).text).toBe('[call read_file {"path":"big.txt"}]');
      const cut = await store.readHistoryMessage(agent, 3, { maxTokens: 500 });
      expect(cut.truncated).toBe(true);
      expect(cut.tokens).toBe(whole.tokens);
      expect(Math.ceil(Buffer.byteLength(cut.text) / 4)).toBeLessThanOrEqual(500);
      expect(cut.text).toMatch(/\[… cut here: the message is about 2,?\d{3} tokens, over the cap of 500; the rest is stored but not shown\]$/);
    });

    it('refuses an empty query, one of only common words, a bad cap, and an unknown agent, each clearly', async () => {
      const store = storeOf();
      const agent = await store.createAgent();
      await expectRefusal(store.searchHistory(agent, '  '), 'INVALID_OPTION', 'empty');
      await expectRefusal(store.searchHistory(agent, 'the and of'), 'INVALID_OPTION', 'only common words');
      await expectRefusal(store.searchHistory(agent, 'x', { maxTokens: 0 }), 'INVALID_OPTION', 'maxTokens');
      await expect(store.readHistoryMessage(agent, 0)).rejects.toMatchObject({ code: 'INVALID_OPTION' });
      await expect(store.searchHistory('00000000-0000-4000-8000-000000000000', 'x')).rejects.toMatchObject({ code: 'UNKNOWN_AGENT' });
      expect((await store.searchHistory(agent, 'zebra')).hits).toEqual([]);
    });

    it('property: finds every message holding a planted token, and only those the agent sees, across forks, clears and rewinds', async () => {
      const store = storeOf();
      await fc.assert(
        // `written`: the search text of every message is written before searching, or not yet (the search writes it first).
        fc.asyncProperty(plantedToken, fc.array(operation, { minLength: 1, maxLength: 14 }), fc.boolean(), async (token, operations, written) => {
          const root = await store.createAgent();
          const agents = [root];
          // What each agent's history is, as the model of it: its ancestors' up to the fork, then its own.
          const paths = new Map<string, Placed[]>([[root, []]]);
          let calls = 0;
          const append = async (agentId: string, messages: Message[]) => {
            const { firstSeq } = await store.append(agentId, messages);
            for (const [index, message] of messages.entries()) paths.get(agentId)?.push({ agentId, seq: firstSeq + index, message });
          };
          for (const step of operations) {
            const agentId = agents[step.agent % agents.length] ?? root;
            const path = paths.get(agentId) ?? [];
            if (step.kind === 'exchange') await append(agentId, exchangeWith(token, step.plant, `call_${calls++}`));
            else if (step.kind === 'fork') {
              const child = await store.fork(agentId);
              agents.push(child);
              paths.set(child, [...path]);
            } else {
              const added = event(step.kind, step.label);
              // A rewind to no reachable mark is refused by the conversation; the model skips it too.
              try {
                applyEventsTo([...path.map((placed) => placed.message), added], (message) => message);
              } catch {
                continue;
              }
              await append(agentId, [added]);
            }
          }
          if (written) await store.searchTextFilled();
          for (const agentId of agents) {
            const visible = applyEventsTo(paths.get(agentId) ?? [], (placed) => placed.message);
            const expected = visible.flatMap((placed, index) => {
              if (!JSON.stringify(placed.message).includes(token)) return [];
              const exchange = visible.slice(0, index + 1).filter((before) => startsExchange(before.message)).length - 1;
              return [`${placed.agentId}:${placed.seq}:#${exchange}`];
            });
            const search = await store.searchHistory(agentId, token, { limit: 100, maxTokens: 100_000 });
            expect(search.hits.map((hit) => `${hit.agentId}:${hit.seq}:#${String(hit.exchange)}`).sort()).toEqual(expected.sort());
            expect(search.hits.every((hit) => hit.excerpt.includes(token))).toBe(true);
          }
        }),
        { numRuns: 16 },
      );
    }, 120_000);
  });
}
