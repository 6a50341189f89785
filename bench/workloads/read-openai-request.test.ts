import { describe, expect, it } from 'vitest';
import { loadTokenCounter } from '../../src/tokens/load-token-counter.js';
import { agentTraffic, TRAFFIC_SYSTEM, TRAFFIC_TOOLS } from './agent-traffic.js';
import { judgeWindow } from '../../src/testing/judge-window.js';
import { memoizedCounter, readOpenAiRequest } from './read-openai-request.js';

const counter = await loadTokenCounter();
const target = { provider: 'openai', model: 'gpt-4o' };

describe('reading a request as the integrations server received it', () => {
  const body = {
    model: 'gpt-4o',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'tool', tool_call_id: 'call_gone', content: 'a result whose call was cut away' },
      { role: 'user', content: [{ type: 'text', text: 'Read it.' }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }] },
    ],
    tools: [{ type: 'function', function: { name: 'read_file', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } } } } }],
  };

  it('reads orphans instead of refusing them, and the judge counts both', () => {
    const { system, tools, messages } = readOpenAiRequest(body);
    expect(system).toBe('Be brief.');
    expect(tools.map((tool) => tool.name)).toEqual(['read_file']);
    expect(messages.map((message) => message.role)).toEqual(['tool', 'user', 'assistant']);
    expect(messages[2]?.content).toEqual([{ type: 'tool-call', toolCallId: 'call_1', toolName: 'read_file', input: { path: 'a.ts' } }]);
    const verdict = judgeWindow(messages, { ...target, counter, system: system ?? '', tools, budgetTokens: 10 });
    expect(verdict).toMatchObject({ orphans: 2, startsWithNonUser: true, overBudget: true });
  });

  it('counts a request exactly as the counter does, once per message', () => {
    const memoized = memoizedCounter(counter);
    const traffic = agentTraffic(7);
    const history = traffic.history(300);
    for (const size of [1, 40, 150, history.length, history.length]) {
      const request = { system: TRAFFIC_SYSTEM, tools: TRAFFIC_TOOLS, messages: history.slice(0, size) };
      expect(memoized.count({ ...target, request }).tokens, `${size} messages`).toBe(counter.count({ ...target, request }).tokens);
    }
  });
});
