import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSlidingContextError } from '../errors/sliding-context-error.js';
import { applyEvents } from '../message/apply-events.js';
import type { Message, ModelMessage } from '../message/message.js';
import { HistoryStore } from '../store/history-store.js';
import { findConversationByReading } from './find-conversation-by-prefix.js';

// Few texts, so that histories share prefixes often; a user text comes as a string or as one part.
const word = fc.constantFrom('x', 'y', 'z');
const userMessage = fc.tuple(word, fc.boolean()).map(([text, asPart]): ModelMessage => ({ role: 'user', content: asPart ? [{ type: 'text', text }] : text }));
const assistantMessage = word.map((text): ModelMessage => ({ role: 'assistant', content: text }));
const modelMessage = fc.oneof({ arbitrary: userMessage, weight: 3 }, { arbitrary: assistantMessage, weight: 3 }, { arbitrary: fc.constant<ModelMessage>({ role: 'system', content: 's' }), weight: 1 });
const label = fc.constantFrom('m', 'n', undefined);
const storedMessage: fc.Arbitrary<Message> = fc.oneof(
  { arbitrary: modelMessage, weight: 8 },
  { arbitrary: fc.constant<Message>({ role: 'event', kind: 'clear' }), weight: 1 },
  { arbitrary: label.map((name): Message => (name === undefined ? { role: 'event', kind: 'mark' } : { role: 'event', kind: 'mark', label: name })), weight: 2 },
);
const messages = fc.array(storedMessage, { minLength: 1, maxLength: 6 });

type Operation =
  | { readonly kind: 'create'; readonly messages: Message[] }
  | { readonly kind: 'append'; readonly agent: number; readonly messages: Message[] }
  | { readonly kind: 'fork'; readonly agent: number }
  | { readonly kind: 'rewind'; readonly agent: number; readonly label: string | undefined; readonly messages: Message[] };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  messages.map((list): Operation => ({ kind: 'create', messages: list })),
  fc.record({ kind: fc.constant('append' as const), agent: fc.nat(), messages }),
  fc.record({ kind: fc.constant('fork' as const), agent: fc.nat() }),
  fc.record({ kind: fc.constant('rewind' as const), agent: fc.nat(), label, messages: fc.array(modelMessage, { maxLength: 3 }) }),
);

/** A request made from an agent's visible history: cut somewhere, maybe one message changed, maybe more after. */
const request = fc.record({
  agent: fc.nat(),
  cut: fc.nat(),
  edit: fc.option(fc.tuple(fc.nat(), modelMessage), { nil: undefined }),
  tail: fc.array(modelMessage, { maxLength: 3 }),
});

describe('the prefix index against reading every history', () => {
  it('property: for histories with forks, clears, marks and rewinds, it finds what the reading finder finds', { timeout: 600_000 }, async () => {
    await fc.assert(fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 14 }), fc.array(request, { minLength: 1, maxLength: 6 }), async (operations, requests) => {
      const store = await HistoryStore.open({ memory: true });
      try {
        const agents: string[] = [];
        const pick = (index: number) => agents[index % agents.length] as string;
        for (const step of operations) {
          if (step.kind === 'create' || agents.length === 0) {
            agents.push((await store.createAgentWithMessages({}, step.kind === 'fork' ? [] : step.messages)).agentId);
          } else if (step.kind === 'fork') {
            agents.push(await store.fork(pick(step.agent)));
          } else {
            const rewind: Message[] = step.kind === 'rewind' ? [step.label === undefined ? { role: 'event', kind: 'rewind' } : { role: 'event', kind: 'rewind', label: step.label }] : [];
            try {
              await store.append(pick(step.agent), [...rewind, ...step.messages]);
            } catch (error) {
              // A rewind to no reachable mark is refused, and nothing is stored.
              if (!isSlidingContextError(error, 'UNKNOWN_MARK')) throw error;
            }
          }
        }
        for (const { agent, cut, edit, tail } of requests) {
          const visible = applyEvents((await store.history(pick(agent))).map((row) => row.message));
          const sent = visible.slice(0, cut % (visible.length + 1));
          if (edit !== undefined && sent.length > 0) sent[edit[0] % sent.length] = edit[1];
          for (const message of tail) sent.push(message);
          expect(await store.findStoredPrefix(sent)).toEqual(await findConversationByReading(store, sent));
        }
      } finally {
        await store.close();
      }
    }), { numRuns: 10 });
  });
});

describe('agents created in one tick of the clock (PGlite\'s is a millisecond)', () => {
  it('are ordered alike by the prefix index and by reading every history: the first by ids', async () => {
    // One store for all rounds (an open takes a second or more): each round's text is its own, so
    // the agents of earlier rounds share no prefix with its request.
    const store = await HistoryStore.open({ memory: true });
    try {
      // An agent, its fork and another agent, made back to back: often two of them in one millisecond.
      for (let round = 0; round < 30; round++) {
        const text = `z${round}`;
        const z: Message = { role: 'user', content: text };
        const sent: ModelMessage[] = [{ role: 'user', content: text }, { role: 'system', content: 's' }, { role: 'assistant', content: text }];
        const first = (await store.createAgentWithMessages({}, [z])).agentId;
        await store.fork(first);
        await store.createAgentWithMessages({}, [z]);
        expect(await store.findStoredPrefix(sent)).toEqual(await findConversationByReading(store, sent));
      }
    } finally {
      await store.close();
    }
  });
});
