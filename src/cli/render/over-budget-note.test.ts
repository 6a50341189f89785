import { describe, expect, it } from 'vitest';
import { bytesPerTokenCounter } from '../../tokens/bytes-per-token-counter.js';
import { planWindow } from '../../window/plan-window.js';
import { renderHistoryReport } from './history-report.js';
import { renderHistoryTimelineReport } from './history-timeline-report.js';
import { overBudgetNote } from './over-budget-note.js';
import { renderWindowReport, windowReportRows } from './window-report.js';

const counter = bytesPerTokenCounter;
const messages = [
  { role: 'user' as const, content: 'short question' },
  { role: 'assistant' as const, content: 'short answer' },
];

describe('overBudgetNote', () => {
  it('blames the pinned preamble when it alone is over the budget, not the latest exchange', () => {
    const plan = planWindow({ system: 'You are careful. '.repeat(200), messages, counter, budgetTokens: 300 });
    expect(plan.overBudget).toBe(true);
    expect(plan.pinnedTokens).toBeGreaterThan(300);
    const note = overBudgetNote(plan);
    expect(note).toMatch(/^Over budget by [\d,]+ tokens: the pinned preamble \(system prompt, tools and pinned messages\) takes [\d,]+ tokens, more than the budget of 300 on its own/);
    expect(note).not.toMatch(/latest exchange does not fit/);
    expect(renderWindowReport(plan, windowReportRows(plan, messages))).toContain(note);
  });

  it('blames the latest exchange when the preamble fits and it does not fit beside it', () => {
    const long = [{ role: 'user' as const, content: 'a long question '.repeat(200) }, { role: 'assistant' as const, content: 'ok' }];
    const plan = planWindow({ system: 'Be brief.', messages: long, counter, budgetTokens: 300 });
    expect(plan.pinnedTokens).toBeLessThan(300);
    expect(overBudgetNote(plan)).toMatch(/^Over budget by [\d,]+ tokens: the latest exchange \([\d,]+ tokens\) does not fit beside the [\d,]+ pinned tokens; it is kept/);
  });

  it('names a pinned first exchange that does not fit beside the preamble, and says nothing within budget', () => {
    const long = [{ role: 'user' as const, content: 'the task, at length '.repeat(200) }, { role: 'assistant' as const, content: 'ok' }, ...messages];
    const plan = planWindow({ system: 'Be brief.', messages: long, counter, budgetTokens: 300, pinFirstExchange: true });
    expect(overBudgetNote(plan)).toMatch(/and the pinned first exchange [\d,]+, more than the budget of 300; both are kept\.$/);
    expect(overBudgetNote(planWindow({ messages, counter, budgetTokens: 1000 }))).toBe('');
  });
});

describe('a count of one', () => {
  it('is "1 token", not "1 tokens", in the budget and the over-budget note', () => {
    const request = planWindow({ messages, counter, budgetTokens: 0 }).totalTokens;
    const overByOne = planWindow({ messages, counter, budgetTokens: request - 1 });
    expect(overBudgetNote(overByOne)).toMatch(/^Over budget by 1 token: /);
    const budgetOne = planWindow({ messages, counter, budgetTokens: 1 });
    const now = new Date(0);
    const timeline = { agentId: 'a', plan: budgetOne, rows: [], offset: 0, offsetBeforeRange: 0, total: 0, all: false, summary: undefined, exchangesIn: 1, exchangesOut: 0, now, color: false };
    for (const header of [renderWindowReport(budgetOne, windowReportRows(budgetOne, messages)), renderHistoryReport('a', budgetOne, [], now), renderHistoryTimelineReport(timeline)]) {
      expect(header.split('\n')[0]).toMatch(/ · budget 1 token$/);
    }
  });
});
