import { describe, expect, it } from 'vitest';
import { convertClaudeCodeTranscript } from './claude-code-transcript.js';
import type { TranscriptLine } from './transcript.js';

const line = (number: number, record: Record<string, unknown>): TranscriptLine => ({ line: number, record: { sessionId: 's', isSidechain: false, ...record } });
const prompt = (number: number, uuid: string, parentUuid: string | null, text: string) => line(number, { type: 'user', uuid, parentUuid, message: { role: 'user', content: text } });
const call = (number: number, uuid: string, parentUuid: string, messageId: string, id: string) =>
  line(number, { type: 'assistant', uuid, parentUuid, message: { id: messageId, role: 'assistant', content: [{ type: 'tool_use', id, name: 'Read', input: { file_path: `${id}.ts` } }] } });
const result = (number: number, uuid: string, parentUuid: string, id: string, text: string) =>
  line(number, { type: 'user', uuid, parentUuid, sourceToolAssistantUUID: parentUuid, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text }] } });
const answer = (number: number, uuid: string, parentUuid: string, messageId: string) =>
  line(number, { type: 'assistant', uuid, parentUuid, message: { id: messageId, role: 'assistant', content: [{ type: 'text', text: 'done' }] } });

describe('convertClaudeCodeTranscript', () => {
  it('joins the calls of one reply when the result of the first was written before the second call', () => {
    const transcript = convertClaudeCodeTranscript(
      [prompt(1, 'u1', null, 'read both'), call(2, 'a1', 'u1', 'msg_1', 'toolu_a'), result(3, 'r1', 'a1', 'toolu_a', 'A'), call(4, 'a2', 'r1', 'msg_1', 'toolu_b'), result(5, 'r2', 'a2', 'toolu_b', 'B'), answer(6, 'a3', 'r2', 'msg_2')],
      false,
    );
    expect(transcript.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'user', 'assistant']);
    expect(JSON.stringify(transcript.messages[1]).match(/tool-call/g)).toHaveLength(2);
    expect(transcript.skipped).toEqual({});
  });

  it('goes on past a line it could not read (a broken line): the thread before it is kept', () => {
    // Line 4 (the answer a3, parent of the next prompt) was broken: it is not among the records.
    const transcript = convertClaudeCodeTranscript(
      [prompt(1, 'u1', null, 'read it'), call(2, 'a1', 'u1', 'msg_1', 'toolu_a'), result(3, 'r1', 'a1', 'toolu_a', 'A'), prompt(5, 'u2', 'a3', 'and then?'), answer(6, 'a4', 'u2', 'msg_3')],
      false,
    );
    expect(transcript.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'user', 'assistant']);
    expect(transcript.messages[0]).toMatchObject({ role: 'user', content: 'read it' });
    expect(transcript.skipped).toEqual({});
  });

  it('takes back the results of parallel calls off the chain, but not a second result for a call already answered', () => {
    const transcript = convertClaudeCodeTranscript(
      [
        prompt(1, 'u1', null, 'read both'),
        call(2, 'a1', 'u1', 'msg_1', 'toolu_a'),
        call(3, 'a2', 'a1', 'msg_1', 'toolu_b'),
        result(4, 'r1', 'a1', 'toolu_a', 'A'),
        result(5, 'r1again', 'a1', 'toolu_a', 'A again'),
        result(6, 'r2', 'a2', 'toolu_b', 'B'),
        answer(7, 'a3', 'r2', 'msg_2'),
      ],
      false,
    );
    const text = JSON.stringify(transcript.messages);
    expect(text).toContain('"value":"A"');
    expect(text).toContain('"value":"B"');
    expect(text).not.toContain('A again');
    expect(transcript.skipped).toEqual({ 'abandoned branch': 1 });
  });
});
