import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../../message/message.js';
import { HistoryStore } from '../../store/history-store.js';
import { runCli } from '../_test-cli.js';

const directory = mkdtempSync(join(tmpdir(), 'sliding-context-history-events-'));
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});
// One PGlite directory for every agent of this file: each opening costs seconds on a busy machine.
const flags = ['--data-dir', join(directory, 'store')];
const turns = (...names: string[]): Message[] => names.flatMap((name) => [{ role: 'user', content: `ask ${name}` }, { role: 'assistant', content: `answer ${name}` }]);
const event = (kind: 'clear' | 'mark' | 'rewind', label?: string): Message => ({ role: 'event', kind, ...(label === undefined ? {} : { label }) });

interface TimelineJson {
  type: 'exchange' | 'event';
  kind?: string;
  label?: string | null;
  title?: string;
  index?: number | null;
  outOfWindow?: string | null;
  tookOut?: number;
  fork?: { childId: string; direction: string };
}
interface HistoryJson {
  exchanges: { title: string; outOfWindow: string | null }[];
  timeline: TimelineJson[];
  events: TimelineJson[];
  hiddenExchanges: TimelineJson[];
  timelineRange: { first: number; count: number; total: number };
}

/** Two exchanges, mark "a", two more, a rewind to "a", one more, a clear, and one more. */
const withEvents = [...turns('one', 'two'), event('mark', 'a'), ...turns('three', 'four'), event('rewind', 'a'), ...turns('five'), event('clear'), ...turns('six')];
const agents = { events: '', clears: '', parent: '', child: '', marks: '', cleared: '' };

beforeAll(async () => {
  const store = await HistoryStore.open({ dataDir: join(directory, 'store') });
  try {
    agents.events = await store.createAgent();
    await store.append(agents.events, withEvents);
    agents.clears = await store.createAgent();
    await store.append(agents.clears, [...withEvents, event('clear'), ...turns('seven')]);
    agents.parent = await store.createAgent();
    await store.append(agents.parent, [...turns('one'), event('clear'), ...turns('two')]);
    agents.child = await store.fork(agents.parent, {}, { name: 'try' });
    await store.append(agents.child, turns('three'));
    agents.marks = await store.createAgent();
    await store.append(agents.marks, [...turns('one'), event('mark', 'start'), ...turns('two'), event('mark', 'gone'), ...turns('three'), event('mark', 'later'), event('rewind', 'gone')]);
    agents.cleared = await store.createAgent();
    await store.append(agents.cleared, [...turns('one'), event('mark', 'start'), event('clear')]);
  } finally {
    await store.close();
  }
}, 240_000);

/** The rows of the human view: exchange lines (`#n` or `–`) and event lines (`── `). */
const viewRows = (text: string) => text.split('\n').filter((line) => /^\s+(#\d+|–) {2}"|^ {7}── /.test(line));
const historyJson = async (...args: string[]) => JSON.parse((await runCli(['history', ...args, '--json', ...flags])).stdout) as HistoryJson;

describe('history lists the events and what they took out', () => {
  it('after a rewind and a clear, the human view and --json list the same rows in the same order, hidden ones marked', async () => {
    const agentId = agents.events;
    const view = (await runCli(['history', agentId, ...flags])).stdout;
    const json = await historyJson(agentId);
    expect(view).not.toContain('(no exchanges yet)');
    const rows = viewRows(view);
    expect(rows).toHaveLength(json.timeline.length);
    expect(json.timeline.map((row) => (row.type === 'event' ? `${row.kind ?? ''}:${row.label ?? ''}` : `${row.title ?? ''}:${row.outOfWindow ?? 'in'}`))).toEqual([
      'ask one:cleared',
      'ask two:cleared',
      'mark:a',
      'ask three:rewound',
      'ask four:rewound',
      'rewind:a',
      'ask five:cleared',
      'clear:',
      'ask six:in',
    ]);
    json.timeline.forEach((row, index) => {
      const line = rows[index] ?? '';
      if (row.type === 'event') expect(line).toContain(`── ${row.kind ?? ''}`);
      else {
        expect(line).toContain(`"${row.title ?? ''}"`);
        if (row.outOfWindow === 'cleared' || row.outOfWindow === 'rewound') expect(line).toMatch(new RegExp(`\\b${row.outOfWindow}$`));
      }
    });
    expect(view).toMatch(/── rewind to "a" \(seq \d+\): 2 exchanges out of the window/);
    expect(view).toMatch(/── clear \(seq \d+\): 3 exchanges out of the window/);
    expect(json.events.map((row) => row.kind)).toEqual(['mark', 'rewind', 'clear']);
    expect(json.hiddenExchanges).toHaveLength(5);
    expect(json.exchanges).toEqual([expect.objectContaining({ title: 'ask six', outOfWindow: null })]);
    // Plain text off a terminal; dimmed on one.
    expect(view).not.toContain('\u001b[2m');
    const dimmed = (await runCli(['history', agentId, ...flags], { stdoutIsTerminal: true })).stdout;
    const escape = String.fromCharCode(27);
    expect(dimmed).toContain(`${escape}[2m`);
    expect(dimmed.split('\n').find((line) => line.includes('"ask three"'))).toMatch(new RegExp(`^${escape}\\[2m +– {2}"ask three".*rewound${escape}\\[22m$`));
  }, 240_000);

  it('by default lists from the clear before the latest one; --all goes back to the first; --limit and --tail cut the rows', async () => {
    const agentId = agents.clears;
    const recent = await historyJson(agentId);
    expect(recent.timeline.map((row) => row.title ?? row.kind)).toEqual(['ask six', 'clear', 'ask seven']);
    expect(recent.timelineRange).toEqual({ first: 8, count: 3, total: 11 });
    const recentView = (await runCli(['history', agentId, ...flags])).stdout;
    expect(viewRows(recentView)).toHaveLength(3);
    expect(recentView).toContain('(8 earlier rows from before the last clears not shown: history --all lists them)');
    const all = await historyJson(agentId, '--all');
    expect(all.timeline).toHaveLength(11);
    expect(all.timeline[0]).toMatchObject({ title: 'ask one', outOfWindow: 'cleared' });
    const tail = await historyJson(agentId, '--all', '--tail', '2');
    expect(tail.timeline.map((row) => row.title ?? row.kind)).toEqual(['clear', 'ask seven']);
    // Rows left out by --tail are not blamed on a clear.
    const tailView = (await runCli(['history', agentId, '--all', '--tail', '2', ...flags])).stdout;
    expect(tailView).toContain('(9 earlier rows not shown: leave out --tail, or raise it, to see them)');
    expect(tailView).not.toContain('history --all lists them');
    const limit = (await runCli(['history', agentId, '--all', '--limit', '2', ...flags])).stdout;
    expect(viewRows(limit)).toHaveLength(2);
    expect(limit).toContain('(9 later rows not shown: see --tail)');
    // What a clear took out is outside the window: listed above the rule, with --limit too.
    expect(limit.indexOf('"ask one"')).toBeGreaterThan(-1);
    expect(limit.indexOf('── context')).toBeGreaterThan(limit.indexOf('"ask one"'));
    await expect(runCli(['history', agentId, '--limit', '2', '--tail', '2', ...flags])).rejects.toMatchObject({ code: 'INVALID_OPTION' });
    await expect(runCli(['history', agentId, '--tail', '0', ...flags])).rejects.toMatchObject({ code: 'INVALID_OPTION' });
  }, 240_000);

  it('a fork shows where it forked, and --all its inherited history across a clear in the parent', async () => {
    const { parent, child } = agents;
    const json = await historyJson(child, '--all');
    expect(json.timeline.map((row) => row.title ?? row.kind)).toEqual(['ask one', 'clear', 'ask two', 'fork', 'ask three']);
    expect(json.timeline[3]?.fork).toMatchObject({ childId: child, direction: 'from-parent' });
    const parentView = (await runCli(['history', parent, ...flags])).stdout;
    expect(parentView).toContain(`── fork → ${child} "try"`);
  }, 240_000);
});

describe('marks', () => {
  it('lists the marks a rewind can reach, human and --json alike', async () => {
    const agentId = agents.marks;
    const { marks } = JSON.parse((await runCli(['marks', agentId, '--json', ...flags])).stdout) as { marks: { label: string; seq: number; exchange: number; createdAt: string }[] };
    expect(marks.map(({ label, seq, exchange }) => ({ label, seq, exchange }))).toEqual([
      { label: 'start', seq: 3, exchange: 1 },
      { label: 'gone', seq: 6, exchange: 2 },
    ]);
    const lines = (await runCli(['marks', agentId, ...flags])).stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^LABEL +SEQ +SET +EXCHANGE$/);
    expect(lines.slice(1)).toEqual(marks.map((mark): unknown => expect.stringMatching(new RegExp(`^"${mark.label}" +seq ${mark.seq} +\\S.* +after exchange #${mark.exchange - 1}, before #${mark.exchange}$`))));
  }, 240_000);

  it('after a clear no mark is reachable', async () => {
    const agentId = agents.cleared;
    expect((await runCli(['marks', agentId, ...flags])).stdout).toMatch(/^No marks a rewind of/);
    expect(JSON.parse((await runCli(['marks', agentId, '--json', ...flags])).stdout)).toEqual({ agentId, marks: [] });
    // A label is stored text: its control characters are shown, never sent to the terminal.
    await runCli(['mark', agentId, 'a\u001b[31mred', ...flags]);
    const listed = (await runCli(['marks', agentId, ...flags])).stdout;
    expect(listed).toContain('"a\\x1b[31mred"');
    expect(listed).not.toContain('\u001b');
  }, 240_000);
});
