import { describe, expect, it } from 'vitest';
import { bytesPerTokenCounter as counter } from '../tokens/bytes-per-token-counter.js';
import { planWindow } from '../window/plan-window.js';
import { buildRequest, convertFrom, type WireFormat } from './wire-format.js';

/** Plans a window over a body's conversation and builds the body that goes upstream, in the body's format. */
function windowed(format: WireFormat, body: Record<string, unknown>, budgetTokens: number) {
  const converted = convertFrom(format, body);
  const plan = planWindow({ system: converted.system, tools: converted.tools, messages: converted.messages, counter, budgetTokens });
  return { converted, plan, sent: buildRequest(format, { model: String(body.model), ...converted, messages: plan.messages }) as Record<string, unknown> };
}

const notes = 'note: the figures were checked line by line. '.repeat(200);

describe('context an agent injects among its messages stays in every window, sent as it came', () => {
  it('Codex: the <environment_context> user message before the prompt is a system message sent as a user one, in the preamble', () => {
    const environment = '<environment_context>\n  <cwd>/home/dev/tool</cwd>\n  <shell>bash</shell>\n</environment_context>';
    const body = {
      model: 'gpt-5.5',
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'You are Codex.' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: environment }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Read notes.txt.' }] },
        { type: 'function_call', call_id: 'call_1', name: 'exec_command', arguments: '{"cmd":"cat notes.txt"}' },
        { type: 'function_call_output', call_id: 'call_1', output: notes },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Read.' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Now write summary.txt.' }] },
      ],
    };
    const whole = windowed('openai-responses', body, 0);
    expect(whole.converted.messages[1]).toEqual({ role: 'system', content: environment, providerOptions: { openai: { role: 'user' } } });
    expect(whole.plan.preambleMessages).toBe(2);
    const roles = (sent: Record<string, unknown>) => (sent.input as { role?: string; content?: unknown }[]).map((item) => item.role ?? 'tool');
    expect(roles(whole.sent)).toEqual(['developer', 'user', 'user', 'tool', 'tool', 'assistant', 'user']);

    const slid = windowed('openai-responses', body, whole.plan.totalTokens - 100);
    expect(slid.plan.evictedExchanges).toBe(1);
    expect(slid.sent.input).toEqual([
      { role: 'developer', content: 'You are Codex.' },
      { role: 'user', content: environment },
      { role: 'user', content: [{ type: 'input_text', text: 'Now write summary.txt.' }] },
    ]);
    // A user message that only mentions such a block is the user's.
    const asked = convertFrom('openai-responses', { model: 'm', input: [{ role: 'user', content: `Why does Codex send ${environment}?` }] });
    expect(asked.messages[0]?.role).toBe('user');
  });

  it('Claude Code: the system message right after the first user message goes before it, and back to its place in every window', () => {
    const environment = '# Environment\nYou have been invoked in the following environment:\n - Primary working directory: /home/dev/tool';
    const turnOne = [
      { role: 'user', content: [{ type: 'text', text: 'Read notes.txt.' }] },
      { role: 'system', content: [{ type: 'text', text: environment }], output_config: { effort: 'medium' } },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'notes.txt' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: notes }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Read.' }] },
    ];
    const body = { model: 'claude-opus-5-5', max_tokens: 1024, system: 'You are Claude Code.', messages: [...turnOne, { role: 'user', content: 'Now write summary.txt.' }] };
    const whole = windowed('anthropic', body, 0);
    expect(whole.converted.messages[0]).toMatchObject({ role: 'system', content: environment, providerOptions: { anthropic: { inMessages: true, afterFirstUser: true } } });
    expect(whole.plan.preambleMessages).toBe(1);
    expect(whole.sent.messages).toEqual(body.messages);
    // The first request, before any reply: the system message is last, as it came.
    const first = { ...body, messages: turnOne.slice(0, 2) };
    expect(windowed('anthropic', first, 0).sent.messages).toEqual(first.messages);

    const slid = windowed('anthropic', body, whole.plan.totalTokens - 100);
    expect(slid.plan.evictedExchanges).toBe(1);
    expect(slid.sent.messages).toEqual([{ role: 'user', content: 'Now write summary.txt.' }, turnOne[1]]);
    const longer = { ...body, messages: [...body.messages, { role: 'assistant', content: 'Written.' }] };
    expect(windowed('anthropic', longer, whole.plan.totalTokens - 100).sent.messages).toEqual([{ role: 'user', content: 'Now write summary.txt.' }, turnOne[1], { role: 'assistant', content: 'Written.' }]);
  });

  it('Claude Code: a system message between two user messages, or later on, keeps its place and its exchange', () => {
    const between = convertFrom('anthropic', { model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'Hi.' }, { role: 'system', content: 'Use metric units.' }, { role: 'user', content: 'How far is it?' }] });
    expect(between.messages.map((message) => message.role)).toEqual(['user', 'system', 'user']);
    const later = convertFrom('anthropic', { model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'Hi.' }, { role: 'assistant', content: 'Hello.' }, { role: 'system', content: 'Use metric units.' }] });
    expect(later.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'system']);
  });
});
