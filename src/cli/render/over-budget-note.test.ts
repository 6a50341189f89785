import { describe, expect, it } from 'vitest';
import { bytesPerTokenCounter } from '../../tokens/bytes-per-token-counter.js';
import { planWindow } from '../../window/plan-window.js';
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
