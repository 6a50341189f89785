import { describe, expect, it } from 'vitest';
import { repairPairing } from '../exchange/repair-pairing.js';
import type { ModelMessage } from '../message/message.js';
import { bytesPerTokenCounter } from '../tokens/bytes-per-token-counter.js';
import { planWindow } from './plan-window.js';
import { WindowState } from './window-state.js';

/** More than a call takes as arguments on Node's default stack (about 125,000). */
const LONG = 200_000;

/** One exchange of a request and `LONG` answers: an agent that never hands the turn back. */
function oneLongExchange(): ModelMessage[] {
  const messages: ModelMessage[] = [{ role: 'user', content: 'Keep going.' }];
  for (let index = 1; index < LONG; index++) messages.push({ role: 'assistant', content: `step ${index}` });
  return messages;
}

describe('an exchange or a history longer than a call takes arguments', () => {
  const messages = oneLongExchange();

  it('plans the window of one exchange of 200,000 messages', () => {
    const plan = planWindow({ messages, counter: bytesPerTokenCounter, budgetTokens: 0 });
    expect(plan.messages).toHaveLength(LONG);
  });

  it('keeps one exchange of 200,000 messages in a WindowState', () => {
    const state = new WindowState({ counter: bytesPerTokenCounter, budgetTokens: 0 }).append(messages);
    expect(state.windowMessages()).toHaveLength(LONG);
  });

  it('repairs the pairing of one exchange of 200,000 messages', () => {
    // An orphaned result makes the repair rebuild the exchange (a sound conversation comes back as it is).
    const orphan: ModelMessage = { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'ghost', toolName: 'read_file', output: { type: 'text', value: '' } }] };
    const repaired = repairPairing([...messages, orphan]);
    expect(repaired.repairs).toHaveLength(1);
    expect(repaired.messages).toHaveLength(LONG);
  });
});
