import { describe, expect, it } from 'vitest';
import { digestSummarizer } from '../condense/digest-summarizer.js';
import { answer, user } from '../testing/message-builders.js';
import { bytesPerTokenCounter } from '../tokens/bytes-per-token-counter.js';
import { WindowState } from '../window/window-state.js';
import { type CondenseHost, Condenser } from './condenser.js';
import type { ConversationEvent } from './conversation-events.js';

const counter = bytesPerTokenCounter;
const target = { provider: 'openai', model: 'gpt-4o' };
const RULE = 'Never push to main; open a pull request.';

/** A host whose window pins the rule, and whose preview of the summarized window is `preview`. */
function host(preview: readonly string[]) {
  const state = new WindowState({ counter, ...target, budgetTokens: 0 }).append([
    user(RULE),
    answer('OK.'),
    ...Array.from({ length: 6 }, (_, i) => [user(`Request ${i}: ${'details '.repeat(30)}`), answer(`Done ${i}. ${'notes '.repeat(30)}`)]).flat(),
  ]);
  state.pin(0);
  const events: ConversationEvent[] = [];
  let recorded = 0;
  const condenseHost: CondenseHost = {
    state: () => state,
    summary: () => undefined,
    positionOf: (index) => ({ agentId: 'agent', seq: index + 1 }),
    recordRange: () => {
      recorded++;
      return Promise.resolve();
    },
    pins: () => [{ agentId: 'agent', seq: 1, text: RULE }],
    previewSummary: () => Promise.resolve(new WindowState({ counter, ...target }).append(preview.map((text) => user(text)))),
    emit: (event) => events.push(event),
  };
  return { condenseHost, events, recorded: () => recorded };
}

describe('the pin check after a compaction', () => {
  const condenser = () => new Condenser({ condense: { summarizer: digestSummarizer() }, policy: { name: 'budget' }, counter, target, budgetTokens: () => 0 });

  it('records the summary when every pinned text is in the window the model would see, and says so', async () => {
    const { condenseHost, recorded } = host([`Earlier: ${RULE} and more.`]);
    const result = await condenser().run('all', false, condenseHost);
    expect(result).toMatchObject({ fallback: null, pins: [{ agentId: 'agent', seq: 1, present: true }] });
    expect(recorded()).toBe(1);
  });

  it('discards a summary after which a pinned text would be missing, and reports the fallback', async () => {
    const { condenseHost, events, recorded } = host(['Earlier: never push to main.']);
    const result = await condenser().run('all', false, condenseHost);
    expect(result).toMatchObject({ summary: null, fallback: 'lost-pin', fallbackDetail: expect.stringContaining('seq 1') as string, pins: [{ agentId: 'agent', seq: 1, present: false }] });
    expect(recorded()).toBe(0);
    expect(events).toContainEqual(expect.objectContaining({ type: 'summary-failed', reason: 'lost-pin' }));
  });
});
