import type { ModelMessage, ToolResultPart } from '../message/message.js';

/** A plain user message. */
export const user = (text: string): ModelMessage => ({ role: 'user', content: text });

/** A plain assistant reply. */
export const answer = (text: string): ModelMessage => ({ role: 'assistant', content: text });

/** An assistant message calling `read_file` once per id (parallel calls for several ids). */
export const calls = (...ids: string[]): ModelMessage => ({
  role: 'assistant',
  content: ids.map((id) => ({
    type: 'tool-call' as const,
    toolCallId: id,
    toolName: 'read_file',
    input: { path: `${id}.ts` },
  })),
});

/** A `read_file` result part for a call id. */
export const result = (id: string, value = 'file contents '.repeat(20)): ToolResultPart => ({
  type: 'tool-result',
  toolCallId: id,
  toolName: 'read_file',
  output: { type: 'text', value },
});

/** A tool message answering each id, in the order given. */
export const results = (...ids: string[]): ModelMessage => ({ role: 'tool', content: ids.map((id) => result(id)) });

/**
 * One coding turn: a request to fix `src/<i>.ts`, a `read_file` call and its result of
 * `outputLines` lines, and a short answer. `padding` lengthens the request.
 */
export const fixTurn = (i: number, { outputLines = 20, padding = '' } = {}): ModelMessage[] => [
  { role: 'user', content: `Request ${i}: fix the bug in src/${i}.ts and run the tests.${padding}` },
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: `call_${i}`, toolName: 'read_file', input: { path: `src/${i}.ts` } }] },
  { role: 'tool', content: [result(`call_${i}`, `export const value${i} = ${i};\n`.repeat(outputLines))] },
  { role: 'assistant', content: `Fixed ${i}.` },
];
