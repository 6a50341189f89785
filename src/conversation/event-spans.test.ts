import { trace, type TracerProvider } from '@opentelemetry/api';
import { afterAll, describe, expect, it } from 'vitest';
import { HistoryStore } from '../store/history-store.js';
import { bytesPerTokenCounter } from '../tokens/bytes-per-token-counter.js';
import { openConversation } from './conversation.js';

/** A tracer provider that keeps what it is asked to record, registered as the application would. */
const spans: { name: string; attributes: Record<string, unknown>; ended: boolean }[] = [];
const provider = {
  getTracer: () => ({
    startSpan(name: string, options: { attributes: Record<string, unknown> }) {
      const span = { name, attributes: options.attributes, ended: false };
      spans.push(span);
      return {
        end: () => {
          span.ended = true;
        },
      };
    },
  }),
} as unknown as TracerProvider;
trace.setGlobalTracerProvider(provider);
afterAll(() => {
  trace.disable();
});

describe('conversation events as OpenTelemetry spans', () => {
  it('records each event as an ended span named after it, with its figures as attributes', async () => {
    const store = await HistoryStore.open({ memory: true });
    const conversation = await openConversation({ store, provider: 'openai', model: 'gpt-4o', counter: bytesPerTokenCounter, budgetTokens: 60 });
    const events: string[] = [];
    conversation.on((event) => events.push(event.type));
    for (let i = 0; i < 4; i++) {
      await conversation.append([{ role: 'user', content: `question ${i} ${'x'.repeat(80)}` }, { role: 'assistant', content: `answer ${i}` }]);
      await conversation.endTurn();
    }
    expect(events).toContain('exchange-evicted');
    expect(spans.map((span) => span.name)).toEqual(events.map((type) => `sliding-context.${type}`));
    expect(spans[0]).toMatchObject({ ended: true, attributes: { type: 'exchange-evicted', exchanges: 1, reason: 'budget', tokensBefore: expect.any(Number), tokensAfter: expect.any(Number) } });
    await store.close();
  });
});
