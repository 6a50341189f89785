/**
 * Wire-format conversion: a 10,000-message agent conversation built into each format and read
 * back. Goal: well under a second each way.
 */
import { applyEvents } from '../src/message/apply-events.js';
import type { ModelMessage } from '../src/message/message.js';
import { buildRequest, convertFrom, wireFormats } from '../src/providers/wire-format.js';
import { formatMs, markdownTable, timeMedian } from './_table.js';

/**
 * A realistic tool-heavy conversation of `count` messages: user, call, result, answer. Turns
 * are numbered from `firstTurn`, so that a long history can be made in parts with unique call ids.
 */
export function agentConversation(count: number, firstTurn = 0): ModelMessage[] {
  const messages: ModelMessage[] = [];
  for (let turn = firstTurn; messages.length < count; turn++) {
    messages.push(
      { role: 'user', content: `Fix the failing test in module ${turn}, then run the suite again.` },
      { role: 'assistant', content: [{ type: 'text', text: 'Reading the test first.' }, { type: 'tool-call', toolCallId: `call_${turn}`, toolName: 'read_file', input: { path: `src/module-${turn}.test.ts` } }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: `call_${turn}`, toolName: 'read_file', output: { type: 'text', value: `it('works', () => {\n  expect(run(${turn})).toBe(${turn * 2});\n});\n`.repeat(8) } }] },
      { role: 'assistant', content: `The expectation in module ${turn} was off by one; fixed and the suite passes.` },
    );
  }
  return messages.slice(0, count);
}

export function runConversionBenchmarks(quick: boolean): string[] {
  const messages = agentConversation(10_000);
  const repeat = quick ? 2 : 5;
  const rows = wireFormats.map((format) => {
    const input = { model: 'test-model', system: 'You are a coding agent.', messages };
    let body: unknown = buildRequest(format, input);
    const outMs = timeMedian(repeat, () => {
      body = buildRequest(format, input);
    });
    const inMs = timeMedian(repeat, () => applyEvents(convertFrom(format, body).messages));
    return [format, formatMs(outMs), formatMs(inMs), (Buffer.byteLength(JSON.stringify(body)) / 1_000_000).toFixed(2)];
  });
  return [
    `### Wire formats: a 10,000-message conversation built and read back (goal: well under a second)\n\n${markdownTable(
      ['format', 'build ms', 'convert in ms (validated)', 'body MB'],
      rows,
    )}`,
  ];
}
