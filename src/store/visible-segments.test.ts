import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyEventsTo } from '../message/apply-events.js';
import type { Message } from '../message/message.js';
import { type PathEvent, type SeqSegment, visibleSegments } from './visible-segments.js';

/** A row of a path: which segment it is in, its seq, and its message. */
interface Row {
  readonly segment: number;
  readonly seq: number;
  readonly message: Message;
}

/** Histories of messages, marks (a few labels) and rewinds to reachable marks, split into a path. */
const history = fc
  .tuple(
    fc.array(fc.oneof(fc.constant('message' as const), fc.constantFrom('a', 'b', undefined).map((label) => ({ mark: label })), fc.constantFrom('a', 'b', undefined).map((label) => ({ rewind: label }))), {
      maxLength: 60,
    }),
    fc.array(fc.integer({ min: 1, max: 20 }), { maxLength: 3 }),
  )
  .map(([steps, cuts]) => {
    const messages: Message[] = [];
    const labels: (string | undefined)[] = [];
    for (const step of steps) {
      if (step === 'message') messages.push({ role: 'user', content: String(messages.length) });
      else if ('mark' in step) {
        messages.push(step.mark === undefined ? { role: 'event', kind: 'mark' } : { role: 'event', kind: 'mark', label: step.mark });
        labels.push(step.mark);
      } else {
        // Only rewinds that `applyEvents` accepts: the stored history was checked when written.
        const candidate: Message = step.rewind === undefined ? { role: 'event', kind: 'rewind' } : { role: 'event', kind: 'rewind', label: step.rewind };
        try {
          applyEventsTo([...messages, candidate], (message) => message);
          messages.push(candidate);
        } catch {
          // unreachable mark: skip
        }
      }
    }
    // Split into segments of different agents at the cuts, each starting at a different seq.
    const rows: Row[] = [];
    const path: SeqSegment[] = [];
    let segment = 0;
    let seq = 1;
    const boundaries = new Set(cuts.map((cut) => Math.min(cut, messages.length)));
    messages.forEach((message, index) => {
      if (boundaries.has(index) && index > 0) {
        segment++;
        seq = 5 * segment + 1;
      }
      rows.push({ segment, seq, message });
      const current = path[segment];
      path[segment] = { agentId: `agent-${segment}`, fromSeq: current?.fromSeq ?? seq, toSeq: seq };
      seq++;
    });
    return { rows, path: path.filter(Boolean) };
  });

describe('visibleSegments', () => {
  it('keeps exactly the rows applyEvents keeps, from the marks and rewinds alone', () => {
    fc.assert(
      fc.property(history, ({ rows, path }) => {
        const events: PathEvent[] = rows.flatMap((row) =>
          row.message.role === 'event' && (row.message.kind === 'mark' || row.message.kind === 'rewind')
            ? [{ segment: row.segment, seq: row.seq, kind: row.message.kind, label: row.message.label }]
            : [],
        );
        const { segments, marks } = visibleSegments(path, events, () => 'test');
        const inSegments = rows.filter((row) =>
          row.message.role !== 'event' && segments.some((segment) => segment.agentId === `agent-${row.segment}` && row.seq >= segment.fromSeq && row.seq <= segment.toSeq),
        );
        expect(inSegments).toEqual(applyEventsTo(rows, (row) => row.message));
        // The marks it reports reachable are those a rewind can reach.
        for (const label of ['a', 'b', undefined]) {
          const rewind: Message = label === undefined ? { role: 'event', kind: 'rewind' } : { role: 'event', kind: 'rewind', label };
          const reachable = (() => {
            try {
              applyEventsTo([...rows.map((row) => row.message), rewind], (message) => message);
              return true;
            } catch {
              return false;
            }
          })();
          expect(label === undefined ? marks.length > 0 : marks.includes(label)).toBe(reachable);
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it('names a rewind to no reachable mark', () => {
    const path = [{ agentId: 'a', fromSeq: 1, toSeq: 3 }];
    expect(() => visibleSegments(path, [{ segment: 0, seq: 2, kind: 'rewind', label: 'x' }], () => 'agent a, seq 2')).toThrow(/agent a, seq 2: cannot rewind to mark "x"/);
  });
});
