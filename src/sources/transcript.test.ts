import { describe, expect, it } from 'vitest';
import { convertFromAnthropic } from '../providers/anthropic/convert-from-anthropic.js';
import type { ConversionOptions } from '../providers/conversion.js';
import { convertSegments, type Segment } from './transcript.js';

interface Entry {
  role: 'user' | 'assistant';
  content: unknown;
}

/** A long transcript of prompt, call, result, answer; `broken` exchanges lose their call, or get a block of no known type. */
function transcript(exchanges: number, brokenEvery: number): { segment: Segment<Entry>; brokenLines: number[] } {
  const entries: { line: number; entry: Entry }[] = [];
  const brokenLines: number[] = [];
  for (let index = 0; index < exchanges; index++) {
    const broken = index % brokenEvery === 0;
    const id = `toolu_${index}`;
    entries.push({ line: entries.length + 1, entry: { role: 'user', content: `question ${index}` } });
    if (broken && index % (2 * brokenEvery) === 0) brokenLines.push(entries.length + 1); // the call is lost: its result is refused
    else entries.push({ line: entries.length + 1, entry: { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Read', input: {} }] } });
    entries.push({ line: entries.length + 1, entry: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'text' }] } });
    if (broken && index % (2 * brokenEvery) !== 0) {
      brokenLines.push(entries.length + 1); // a block the schema does not know
      entries.push({ line: entries.length + 1, entry: { role: 'assistant', content: [{ type: 'hologram', text: 'answer' }] } });
    } else entries.push({ line: entries.length + 1, entry: { role: 'assistant', content: [{ type: 'text', text: 'answer' }] } });
  }
  return { segment: { entries }, brokenLines };
}

describe('convertSegments', () => {
  it('sets many broken entries aside in a bounded number of passes, not one pass per broken entry', () => {
    const { segment, brokenLines } = transcript(1500, 15);
    let entriesConverted = 0;
    const { converted, broken } = convertSegments(
      [segment],
      (messages: Entry[], options: ConversionOptions) => {
        entriesConverted += messages.length;
        return convertFromAnthropic({ messages }, options);
      },
      false,
    );
    expect(brokenLines.length).toBe(100);
    expect(broken.map((entry) => entry.line).sort((a, b) => a - b)).toEqual(brokenLines);
    expect(converted[0]?.messages).toHaveLength(segment.entries.length - brokenLines.length);
    // One pass for the schema, one for the rest: linear in the transcript, whatever the number broken.
    expect(entriesConverted).toBeLessThanOrEqual(2 * segment.entries.length);
  });

  it('with strict, throws the first refusal naming its line', () => {
    const { segment, brokenLines } = transcript(40, 15);
    // The schema is checked first: the block of no known type is the refusal thrown.
    expect(() => convertSegments([segment], (messages: Entry[], options: ConversionOptions) => convertFromAnthropic({ messages }, options), true)).toThrow(
      new RegExp(`^line ${String(brokenLines[1])}: The body is not a valid Anthropic Messages request: messages\\[\\d+\\]\\.content\\[0\\]`),
    );
  });
});
