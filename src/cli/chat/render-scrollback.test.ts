import { describe, expect, it } from 'vitest';
import type { ExchangeHistory } from '../../conversation/exchange-history.js';
import type { ModelMessage } from '../../message/message.js';
import { renderScrollback } from './render-scrollback.js';

const messages: ModelMessage[] = [
  { role: 'user', content: 'first question' },
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: 'a.ts' } }] },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read_file', output: { type: 'text', value: 'one\ntwo\nthree' } }] },
  { role: 'assistant', content: 'first answer' },
  { role: 'user', content: 'second question' },
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c2', toolName: 'run_command', input: { command: 'npm test' } }] },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c2', toolName: 'run_command', output: { type: 'error-text', value: 'exit 1\n2 failing' } }] },
  { role: 'assistant', content: 'second answer\nwith two lines' },
];
const exchange = (index: number, inWindow: boolean, summarized = false): ExchangeHistory => ({
  index, title: '', tools: [], tokens: 10, inWindow, pinned: false, agentId: 'a', firstSeq: index, createdAt: new Date(0), summarized,
});

describe('the chat scrollback', () => {
  it('draws every exchange with the rule where the window begins, and notes a pinned summary', () => {
    const lines = renderScrollback(messages, [exchange(0, false, true), exchange(1, true)], { width: 40, color: false });
    expect(lines).toEqual([
      '› first question',
      '  ⚙ read_file({"path":"a.ts"})',
      '    → read_file: 3 lines',
      '  first answer',
      '',
      '',
      `── context ${'─'.repeat(29)}`,
      '',
      '  (a summary of the exchange above is pinned here)',
      '',
      '› second question',
      // Clipped to the width.
      '  ⚙ run_command({"command":"npm test…)',
      '    → run_command: failed: exit 1 2 failing',
      '  second answer',
      '  with two lines',
      '',
    ]);
  });

  it('puts the rule at the top while nothing has left the window, and colors only when asked', () => {
    const plain = renderScrollback(messages, [exchange(0, true), exchange(1, true)], { width: 30, color: false });
    expect(plain[1]).toMatch(/^── context ─+$/);
    expect(plain.join('\n')).not.toContain('\u001b[');
    const colored = renderScrollback(messages, [exchange(0, true), exchange(1, true)], { width: 30, color: true });
    expect(colored).toContain('\u001b[1m› first question\u001b[22m');
  });

  it('wraps long lines to the width, each piece keeping the indent of its line', () => {
    const long: ModelMessage[] = [
      { role: 'user', content: 'please explain the order of the checks in the file' },
      { role: 'assistant', content: 'The checks run in the order they are declared.\n    const first = checkTheOrderOfEverything(items)' },
    ];
    const lines = renderScrollback(long, [exchange(0, true)], { width: 30, color: false });
    expect(lines.slice(3, 10)).toEqual([
      '› please explain the order of',
      '  the checks in the file',
      '  The checks run in the order',
      '  they are declared.',
      '      const first =',
      '      checkTheOrderOfEverythin',
      '      g(items)',
    ]);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(30);
  });
});
