import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectTranscriptFormat } from './read-transcript.js';
import { parseJsonLines, type TranscriptLine } from './transcript.js';

const fixture = (name: string): TranscriptLine[] => parseJsonLines(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8').split('\n')).records;

const titleLines = (count: number): TranscriptLine[] =>
  Array.from({ length: count }, (_, index) => ({ line: index + 1, record: { type: 'summary', summary: `Title ${index}`, leafUuid: `leaf-${index}` } }));

describe('detectTranscriptFormat', () => {
  it('finds a Claude Code session behind any number of title lines', () => {
    const session = fixture('claude-code-session.jsonl');
    expect(detectTranscriptFormat(session)).toBe('claude-code');
    expect(detectTranscriptFormat([...titleLines(300), ...session])).toBe('claude-code');
  });

  it('gives up after 50 records that name no format, title lines not counted', () => {
    const other = (count: number): TranscriptLine[] => Array.from({ length: count }, (_, index) => ({ line: index + 1, record: { kind: 'other', index } }));
    const codex = fixture('codex-rollout.jsonl');
    expect(detectTranscriptFormat([...titleLines(100), ...other(49), ...codex])).toBe('codex');
    expect(detectTranscriptFormat([...other(50), ...codex])).toBeUndefined();
    expect(detectTranscriptFormat(titleLines(10))).toBeUndefined();
  });
});
