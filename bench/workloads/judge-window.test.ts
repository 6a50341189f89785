import { describe, expect, it } from 'vitest';
import type { ModelMessage } from '../../src/message/message.js';
import { loadTokenCounter } from '../../src/tokens/load-token-counter.js';
import { agentTraffic, TRAFFIC_SYSTEM, TRAFFIC_TOOLS } from './agent-traffic.js';
import { judgeWindow } from '../../src/testing/judge-window.js';

const counter = await loadTokenCounter();
const target = { counter, provider: 'openai', model: 'gpt-4o', system: TRAFFIC_SYSTEM, tools: TRAFFIC_TOOLS, budgetTokens: 100_000 };

describe('the benchmark judge', () => {
  const exchange: ModelMessage[] = [
    { role: 'user', content: 'Run the tests.' },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'run_tests', input: {} }, { type: 'tool-call', toolCallId: 'b', toolName: 'run_tests', input: {} }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'a', toolName: 'run_tests', output: { type: 'text', value: 'ok' } }, { type: 'tool-result', toolCallId: 'b', toolName: 'run_tests', output: { type: 'text', value: 'ok' } }] },
    { role: 'assistant', content: 'All green.' },
  ];

  it('passes a whole exchange within budget, counting the whole request', () => {
    const verdict = judgeWindow(exchange, target);
    expect(verdict).toMatchObject({ orphans: 0, startsWithNonUser: false, overBudget: false });
    expect(verdict.requestTokens).toBe(counter.count({ provider: 'openai', model: 'gpt-4o', request: { system: TRAFFIC_SYSTEM, tools: TRAFFIC_TOOLS, messages: exchange } }).tokens);
  });

  it('counts a call without its result and a result without its call, and a start that is not the user', () => {
    expect(judgeWindow(exchange.slice(0, 2), target).orphans).toBe(2);
    const fromTheResults = judgeWindow(exchange.slice(2), target);
    expect(fromTheResults).toMatchObject({ orphans: 2, startsWithNonUser: true });
  });

  it('flags a request over the budget', () => {
    expect(judgeWindow(exchange, { ...target, budgetTokens: 50 }).overBudget).toBe(true);
  });
});

describe('the benchmark traffic', () => {
  it('is the same for the same seed, made of whole exchanges with every call answered', () => {
    const first = agentTraffic(7).history(500);
    expect(agentTraffic(7).history(500)).toEqual(first);
    expect(first[0]?.role).toBe('user');
    expect(judgeWindow(first, { ...target, budgetTokens: Number.POSITIVE_INFINITY }).orphans).toBe(0);
    const parallel = first.filter((message) => message.role === 'assistant' && typeof message.content !== 'string' && message.content.filter((part) => part.type === 'tool-call').length > 1);
    expect(parallel.length).toBeGreaterThan(0);
  });
});
