import { describe, expect, it } from 'vitest';
import { isSlidingContextError } from '../errors/sliding-context-error.js';
import { applyEvents } from './apply-events.js';
import type { Message } from './message.js';

const user = (content: string): Message => ({ role: 'user', content });
const assistant = (content: string): Message => ({ role: 'assistant', content });
const event = (kind: 'clear' | 'mark' | 'rewind' | 'fork' | 'command', label?: string): Message =>
  label === undefined ? { role: 'event', kind } : { role: 'event', kind, label };

describe('applyEvents', () => {
  it('removes events and keeps everything else in order', () => {
    const history = [user('a'), event('fork'), assistant('b'), event('command', '/help')];
    expect(applyEvents(history)).toEqual([user('a'), assistant('b')]);
  });

  it('clear drops everything before it', () => {
    expect(applyEvents([user('a'), assistant('b'), event('clear'), user('c')])).toEqual([
      user('c'),
    ]);
  });

  it('rewind drops everything between its mark and itself, and the mark stays usable', () => {
    const history = [
      user('a'),
      event('mark', 'x'),
      assistant('b'),
      event('mark', 'y'),
      user('c'),
      event('rewind', 'x'),
      user('d'),
      event('rewind', 'x'),
      user('e'),
    ];
    expect(applyEvents(history)).toEqual([user('a'), user('e')]);
  });

  it('a rewind without a label returns to the latest mark', () => {
    expect(applyEvents([user('a'), event('mark'), user('b'), event('rewind')])).toEqual([
      user('a'),
    ]);
  });

  it('a rewind to an unknown mark is an error naming the label', () => {
    const run = () => applyEvents([user('a'), event('rewind', 'nowhere')]);
    expect(run).toThrow(/mark "nowhere"/);
    try {
      run();
    } catch (error) {
      expect(isSlidingContextError(error, 'UNKNOWN_MARK')).toBe(true);
    }
  });

  it('marks before a clear, or after the rewound-to mark, are no longer reachable', () => {
    expect(() =>
      applyEvents([event('mark', 'x'), user('a'), event('clear'), event('rewind', 'x')]),
    ).toThrow(/"x"/);
    expect(() =>
      applyEvents([
        user('a'),
        event('mark', 'x'),
        event('mark', 'y'),
        event('rewind', 'x'),
        event('rewind', 'y'),
      ]),
    ).toThrow(/"y"/);
  });
});
