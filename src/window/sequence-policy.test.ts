import { describe, expect, it } from 'vitest';
import { detectExchanges } from '../exchange/detect-exchanges.js';
import { requireValidConversation } from '../exchange/require-valid-conversation.js';
import type { ModelMessage } from '../message/message.js';
import { bytesPerTokenCounter } from '../tokens/bytes-per-token-counter.js';
import { planWindow } from './plan-window.js';
import { findCompressibleRun } from './sequence-policy.js';

/**
 * Forge's pattern notation: s system, u user, a assistant, t an assistant tool call, r the tool
 * result of the oldest call still open.
 */
function messagesFrom(pattern: string): ModelMessage[] {
  const open: string[] = [];
  let calls = 0;
  return pattern.split('').map((letter, index): ModelMessage => {
    switch (letter) {
      case 's': return { role: 'system', content: `system ${index}` };
      case 'u': return { role: 'user', content: `user ${index}` };
      case 'a': return { role: 'assistant', content: `assistant ${index}` };
      case 't': {
        const id = `call_${calls++}`;
        open.push(id);
        return { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'read_file', input: { path: `${index}.ts` } }] };
      }
      case 'r': {
        const id = open.shift() ?? `orphan_${index}`;
        return { role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: 'read_file', output: { type: 'text', value: `contents ${index}` } }] };
      }
      default: throw new Error(`unknown letter ${letter}`);
    }
  });
}

/** The pattern with the run the finder chooses in brackets, as Forge's tests write it. */
function sequence(pattern: string, retentionWindow: number): string {
  const messages = messagesFrom(pattern);
  requireValidConversation(messages);
  const exchanges = detectExchanges(messages);
  const run = findCompressibleRun(exchanges, messages.length, retentionWindow);
  if (!run) return pattern;
  const first = (exchanges[run.firstExchange] as { firstMessage: number }).firstMessage;
  const last = (exchanges[run.lastExchange] as { lastMessage: number }).lastMessage;
  return `${pattern.slice(0, first)}[${pattern.slice(first, last + 1)}]${pattern.slice(last + 1)}`;
}

describe('the sequence finder, on Forge\'s pattern cases', () => {
  // Forge starts its run at the first assistant message and may end it anywhere before the
  // retention window. Here a run is whole exchanges, and never the latest one.
  it.each([
    ['suaaau', 0, 's[uaaa]u'],
    ['sua', 0, 'sua'],
    ['suauaa', 0, 's[ua]uaa'],
    ['suttu', 0, 's[utt]u'],
    ['sutraau', 0, 's[utraa]u'],
    ['utrutru', 0, '[utrutr]u'],
    ['uttarru', 0, '[uttarr]u'],
    ['suaaaauaa', 0, 's[uaaaa]uaa'],
    ['suaaaauaa', 3, 's[uaaaa]uaa'],
    ['suaaaauaa', 5, 'suaaaauaa'],
    ['suaaaauaa', 8, 'suaaaauaa'],
    ['suauaaa', 0, 's[ua]uaaa'],
    ['suauaaa', 4, 's[ua]uaaa'],
    ['suauaaa', 5, 'suauaaa'],
  ])('%s with retention %i gives %s', (pattern, retention, expected) => {
    expect(sequence(pattern, retention)).toBe(expected);
  });

  it.each([
    ['urru', 'ORPHANED_TOOL_RESULT'],
    // Forge would summarize a call apart from its result; here the result belongs to no call of its exchange.
    ['uturu', 'ORPHANED_TOOL_RESULT'],
  ])('%s is refused with %s, not condensed', (pattern, code) => {
    expect(() => sequence(pattern, 0)).toThrow(expect.objectContaining({ code }));
  });
});

describe('the sequence policy\'s drop fallback (Forge\'s cases)', () => {
  const plan = (pattern: string, policy: { messageThreshold: number; retentionWindow?: number }) => {
    const messages = messagesFrom(pattern);
    const planned = planWindow({ messages, counter: bytesPerTokenCounter, budgetTokens: 0, policy: { name: 'sequence', ...policy } });
    return planned.messages.map((message) => (message.role === 'system' ? 's' : message.role === 'user' ? 'u' : message.role === 'tool' ? 'r' : typeof message.content === 'string' ? 'a' : 't')).join('');
  };

  it('drops the oldest exchanges until under the threshold; the window then starts at a user message', () => {
    expect(plan('suauau', { messageThreshold: 5 })).toBe('suau');
  });

  it('drops a tool call together with its result', () => {
    expect(plan('utrua', { messageThreshold: 5 })).toBe('ua');
  });

  it('drops in several passes until the threshold is met, keeping the system message', () => {
    const result = plan(`s${'ua'.repeat(14)}`, { messageThreshold: 10 });
    expect(result).toBe(`s${'ua'.repeat(4)}`);
  });

  it('keeps an empty history, system messages alone, and the latest exchange however many messages it has', () => {
    expect(plan('', { messageThreshold: 1 })).toBe('');
    expect(plan('ss', { messageThreshold: 1 })).toBe('ss');
    expect(plan('sutrtrtra', { messageThreshold: 2 })).toBe('sutrtrtra');
  });

  it('refuses a history that opens with an assistant message instead of guessing where it starts', () => {
    expect(() => plan('sa', { messageThreshold: 1 })).toThrow(expect.objectContaining({ code: 'INVALID_CONVERSATION' }));
  });
});
