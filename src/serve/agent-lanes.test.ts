import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AgentLanes } from './agent-lanes.js';

/** Work that records when it starts and ends, and ends when the test lets it. */
function heldWork(log: string[], label: string) {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const work = async () => {
    log.push(`${label} start`);
    await released;
    log.push(`${label} end`);
    return label;
  };
  return { work, release };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('agent lanes', () => {
  it('runs two agents side by side and one agent in order', async () => {
    const lanes = new AgentLanes();
    const log: string[] = [];
    const a1 = heldWork(log, 'a1');
    const a2 = heldWork(log, 'a2');
    const b1 = heldWork(log, 'b1');
    const runs = [lanes.run('a', a1.work), lanes.run('a', a2.work), lanes.run('b', b1.work)];
    await tick();
    expect(log).toEqual(['a1 start', 'b1 start']);
    b1.release();
    a1.release();
    await tick();
    a2.release();
    expect(await Promise.all(runs)).toEqual(['a1', 'a2', 'b1']);
    expect(log.indexOf('a2 start')).toBeGreaterThan(log.indexOf('a1 end'));
  });

  it('runs work of no known agent alone: after all before it, before all after it', async () => {
    const lanes = new AgentLanes();
    const log: string[] = [];
    const a = heldWork(log, 'a');
    const alone = heldWork(log, 'alone');
    const b = heldWork(log, 'b');
    const runs = [lanes.run('a', a.work), lanes.run(undefined, alone.work), lanes.run('b', b.work)];
    await tick();
    expect(log).toEqual(['a start']);
    a.release();
    await tick();
    expect(log).toEqual(['a start', 'a end', 'alone start']);
    alone.release();
    b.release();
    await Promise.all(runs);
    expect(log.slice(3)).toEqual(['alone end', 'b start', 'b end']);
  });

  it('keeps every agent\'s order and the lone work\'s exclusivity, whatever the schedule (and a failure does not stop a lane)', async () => {
    const step = fc.record({ agent: fc.option(fc.constantFrom('a', 'b', 'c'), { nil: undefined }), delayMs: fc.integer({ min: 0, max: 3 }), fails: fc.boolean() });
    await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
      const lanes = new AgentLanes();
      const running = new Set<number>();
      const ended: number[] = [];
      const violations: string[] = [];
      await Promise.allSettled(steps.map((planned, index) => lanes.run(planned.agent, async () => {
        for (const other of running) {
          const before = steps[other];
          // Nothing runs beside lone work; two pieces of one agent never overlap.
          if (planned.agent === undefined || before?.agent === undefined || before.agent === planned.agent) violations.push(`${String(index)} ran beside ${String(other)}`);
        }
        // Everything queued before in the same lane, or any lone work queued before, has ended.
        for (let earlier = 0; earlier < index; earlier++) {
          const before = steps[earlier];
          const ordered = planned.agent === undefined || before?.agent === undefined || before.agent === planned.agent;
          if (ordered && !ended.includes(earlier)) violations.push(`${String(index)} started before ${String(earlier)} ended`);
        }
        running.add(index);
        await new Promise((resolve) => setTimeout(resolve, planned.delayMs));
        running.delete(index);
        ended.push(index);
        if (planned.fails) throw new RangeError('planned failure');
      })));
      expect(violations).toEqual([]);
      expect(ended.sort((x, y) => x - y)).toEqual(steps.map((_, index) => index));
    }), { numRuns: 60 });
  });
});
