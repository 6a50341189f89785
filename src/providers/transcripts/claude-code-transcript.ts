import { isRecord } from '../../message/is-record.js';
import type { Message } from '../../message/message.js';
import { convertFromAnthropic } from '../anthropic/convert-from-anthropic.js';
import { type BrokenLine, convertSegments, type Segment, type Transcript, type TranscriptLine } from './transcript.js';

/** True for a line of a Claude Code session file (`~/.claude/projects/<project>/<session>.jsonl`). */
export function isClaudeCodeRecord(record: Readonly<Record<string, unknown>>): boolean {
  return typeof record.sessionId === 'string' && ['user', 'assistant', 'summary', 'system'].includes(String(record.type));
}

interface AnthropicEntry {
  role: 'user' | 'assistant';
  content: unknown;
}

/**
 * The main thread of the session: the chain of `parentUuid` links back from its last message,
 * so that branches left by an edit or a retry are not mixed in.
 */
function mainThread(records: readonly TranscriptLine[]): { thread: TranscriptLine[]; abandoned: number } {
  const byUuid = new Map<string, TranscriptLine>();
  for (const entry of records) if (typeof entry.record.uuid === 'string') byUuid.set(entry.record.uuid, entry);
  const leaf = records.findLast((entry) => typeof entry.record.uuid === 'string');
  if (!leaf) return { thread: [...records], abandoned: 0 };
  const thread: TranscriptLine[] = [];
  const seen = new Set<string>();
  for (let at: TranscriptLine | undefined = leaf; at && !seen.has(String(at.record.uuid));) {
    seen.add(String(at.record.uuid));
    thread.push(at);
    const parent: unknown = at.record.parentUuid ?? at.record.logicalParentUuid;
    at = typeof parent === 'string' ? byUuid.get(parent) : undefined;
  }
  thread.reverse();
  return { thread, abandoned: records.length - thread.length };
}

/**
 * Reads a Claude Code session: user and assistant records carry Anthropic `message.content`
 * blocks (an assistant reply is written one block per line, joined here by message id); side-chains
 * (sub-agents) are left out; a compaction boundary is a `clear`, and the session titles
 * (`summary` records) become marks, so nothing in the file is lost without a trace.
 */
export function convertClaudeCodeTranscript(records: readonly TranscriptLine[], strict: boolean): Transcript {
  const skipped: Record<string, number> = {};
  const skip = (reason: string, count = 1) => {
    if (count > 0) skipped[reason] = (skipped[reason] ?? 0) + count;
  };
  const titles = records.filter(({ record }) => record.type === 'summary' && typeof record.summary === 'string');
  const mainLines = records.filter(({ record }) => {
    if (record.type === 'summary') return false;
    if (record.isSidechain === true) {
      skip('side-chain');
      return false;
    }
    return true;
  });
  const { thread, abandoned } = mainThread(mainLines);
  skip('abandoned branch', abandoned);

  const events: Message[][] = [titles.map(({ record }) => ({ role: 'event', kind: 'mark', label: String(record.summary) }))];
  const segments: Segment<AnthropicEntry>[] = [{ entries: [] }];
  let model: string | undefined;
  let lastAssistantId: string | undefined;
  for (const { line, record } of thread) {
    const current = segments.at(-1) as Segment<AnthropicEntry>;
    if (record.type === 'system') {
      if (record.subtype === 'compact_boundary') {
        // After a compaction the model saw only what follows: a clear in our history.
        events.push([{ role: 'event', kind: 'clear' }]);
        segments.push({ entries: [] });
        lastAssistantId = undefined;
      } else skip('system notice');
      continue;
    }
    const message = isRecord(record.message) ? record.message : undefined;
    if ((record.type !== 'user' && record.type !== 'assistant') || !message) {
      skip('other record');
      continue;
    }
    const content: string | unknown[] | undefined = typeof message.content === 'string' ? message.content : Array.isArray(message.content) ? (message.content as unknown[]) : undefined;
    if (content === undefined) {
      skip('other record');
      continue;
    }
    if (record.type === 'assistant') {
      if (typeof message.model === 'string' && message.model !== '<synthetic>') model = message.model;
      const id = typeof message.id === 'string' ? message.id : undefined;
      const previous = current.entries.at(-1);
      // One reply, one line per content block: join the blocks back into one message.
      if (id !== undefined && id === lastAssistantId && previous?.entry.role === 'assistant' && Array.isArray(previous.entry.content) && Array.isArray(content)) {
        previous.entry.content = [...(previous.entry.content as unknown[]), ...content];
        continue;
      }
      lastAssistantId = id;
      current.entries.push({ line, entry: { role: 'assistant', content } });
    } else {
      lastAssistantId = undefined;
      current.entries.push({ line, entry: { role: 'user', content } });
    }
  }
  const { converted, broken } = convertSegments(segments, (messages) => convertFromAnthropic({ messages }), strict);
  const messages = converted.flatMap((request, index) => [...(events[index] ?? []), ...request.messages]);
  return {
    format: 'claude-code',
    messages,
    options: model === undefined ? {} : { model },
    brokenLines: broken satisfies BrokenLine[],
    skipped,
  };
}
