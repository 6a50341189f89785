import { describe, expect, it } from 'vitest';
import type { ModelMessage } from '../../message/message.js';
import { bytesPerTokenCounter } from '../../tokens/bytes-per-token-counter.js';
import { planWindow } from '../../window/plan-window.js';
import { renderWindowReport, windowReportRows } from './window-report.js';

/** More than a call takes as arguments on Node's default stack (about 125,000). */
const LONG = 200_000;

describe('the window report of a history longer than a call takes arguments', () => {
  it('reports a plan of 200,000 exchanges', () => {
    const requests: ModelMessage[] = Array.from({ length: LONG }, (_, index) => ({ role: 'user', content: `request ${index}` }));
    const plan = planWindow({ messages: requests, counter: bytesPerTokenCounter, budgetTokens: 1_000 });
    const report = renderWindowReport(plan, windowReportRows(plan, requests));
    expect(report).toContain('of 200,000 exchanges');
  });
});
