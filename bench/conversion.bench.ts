/**
 * Wire-format conversion: a 10,000-message agent conversation built into each format and read
 * back. Goal: well under a second each way.
 */
import { applyEvents } from '../src/message/apply-events.js';
import type { ModelMessage } from '../src/message/message.js';
import { readTranscript } from '../src/sources/read-transcript.js';
import { parseJsonLines } from '../src/sources/transcript.js';
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
    transcriptSection(repeat),
  ];
}

/** The lines of a Codex rollout of `turns` turns (4 records each); every `brokenEvery`-th call line cut short. */
function codexRollout(turns: number, brokenEvery: number): string[] {
  const lines = [JSON.stringify({ timestamp: '2026-11-21T08:00:00.000Z', type: 'session_meta', payload: { id: 'rollout', instructions: 'You are a coding agent.' } })];
  for (let turn = 0; turn < turns; turn++) {
    const items = [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: `Fix the failing test in module ${turn}.` }] },
      { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', `npm test -- module-${turn}`] }), call_id: `call_${turn}` },
      { type: 'function_call_output', call_id: `call_${turn}`, output: `ok module ${turn}\n`.repeat(8) },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `Module ${turn} passes.` }] },
    ];
    for (const [index, item] of items.entries()) {
      const line = JSON.stringify({ timestamp: '2026-11-21T08:00:01.000Z', type: 'response_item', payload: item });
      // A cut line loses its call, so the output that follows is refused too: two broken lines.
      lines.push(brokenEvery > 0 && index === 1 && turn % brokenEvery === 0 ? line.slice(0, 60) : line);
    }
  }
  return lines;
}

/** Reading a 40,000-record Codex rollout whole, and with 1,000 broken lines: the second must cost about the same. */
function transcriptSection(repeat: number): string {
  const rows = [0, 20].map((brokenEvery) => {
    const lines = codexRollout(10_000, brokenEvery);
    let broken = 0;
    const ms = timeMedian(repeat, () => {
      broken = readTranscript(parseJsonLines(lines), { source: 'rollout.jsonl' }).brokenLines.length;
    });
    return [String(lines.length - 1), String(broken), formatMs(ms)];
  });
  return `### Agent transcripts: a Codex rollout read for import, whole and with broken lines (goal: the same order of time)\n\n${markdownTable(['records', 'broken lines', 'read ms'], rows)}`;
}
