import { isRecord } from '../message/is-record.js';
import type { Message } from '../message/message.js';
import { convertFromAnthropic } from '../providers/anthropic/convert-from-anthropic.js';
import { type BrokenLine, convertSegments, type Segment, type Transcript, type TranscriptLine } from './transcript.js';

/** True for a line of a Claude Code session file (`~/.claude/projects/<project>/<session>.jsonl`). */
export function isClaudeCodeRecord(record: Readonly<Record<string, unknown>>): boolean {
  return typeof record.sessionId === 'string' && ['user', 'assistant', 'summary', 'system'].includes(String(record.type));
}

interface AnthropicEntry {
  role: 'user' | 'assistant';
  content: string | unknown[];
}

/** True for a user line that carries tool results: the answer to calls, not a prompt. */
function carriesToolResults(record: Readonly<Record<string, unknown>>): boolean {
  return record.type === 'user' && isRecord(record.message) && Array.isArray(record.message.content) && record.message.content.some((block) => isRecord(block) && block.type === 'tool_result');
}

/** The ids of the tool results a user line carries. */
function toolResultIds(record: Readonly<Record<string, unknown>>): string[] {
  const content = isRecord(record.message) && Array.isArray(record.message.content) ? record.message.content : [];
  return content.flatMap((block) => (isRecord(block) && block.type === 'tool_result' && typeof block.tool_use_id === 'string' ? [block.tool_use_id] : []));
}

/** The API message id of an assistant line, shared by the lines of its content blocks. */
function assistantMessageId(record: Readonly<Record<string, unknown>>): string | undefined {
  return record.type === 'assistant' && isRecord(record.message) && typeof record.message.id === 'string' ? record.message.id : undefined;
}

/** Why a line off the main thread is left out: a real branch, or a line that is not conversation. */
function offThreadReason(record: Readonly<Record<string, unknown>>): string {
  if (record.type === 'progress') return 'progress';
  if (record.type === 'system' && record.subtype !== 'compact_boundary') return 'system notice';
  return record.type === 'user' || record.type === 'assistant' || record.type === 'system' ? 'abandoned branch' : 'other record';
}

/** The last line of `records` before `entry` in the file that `keeps`, if any. */
function lineBefore(records: readonly TranscriptLine[], entry: TranscriptLine, keeps: (entry: TranscriptLine) => boolean): TranscriptLine | undefined {
  return records.findLast((each) => each.line < entry.line && keeps(each));
}

/**
 * The main thread of the session: the chain of `parentUuid` links back from its last message,
 * so that branches left by an edited prompt or a retry are not mixed in. Claude Code writes one
 * line per content block of a reply (one `message.id`), and since 2.1 parents each tool result
 * to the line of its own call: parallel calls fork the chain without being branches, so the
 * sibling blocks and their results are taken back in, after the reply's last line on the chain.
 */
function mainThread(records: readonly TranscriptLine[]): { thread: TranscriptLine[]; leftOut: TranscriptLine[] } {
  const byUuid = new Map<string, TranscriptLine>();
  for (const entry of records) if (typeof entry.record.uuid === 'string') byUuid.set(entry.record.uuid, entry);
  const conversation = (entry: TranscriptLine) => typeof entry.record.uuid === 'string' && (entry.record.type === 'user' || entry.record.type === 'assistant');
  const leaf = records.findLast(conversation) ?? records.findLast((entry) => typeof entry.record.uuid === 'string');
  if (!leaf) return { thread: [...records], leftOut: [] };
  const chain: TranscriptLine[] = [];
  const onThread = new Set<TranscriptLine>();
  for (let at: TranscriptLine | undefined = leaf; at && !onThread.has(at);) {
    onThread.add(at);
    chain.push(at);
    const parent: unknown = at.record.parentUuid ?? at.record.logicalParentUuid;
    // A parent the file names but does not hold readable (a broken line): the thread goes on from the line before.
    at = typeof parent === 'string' ? (byUuid.get(parent) ?? lineBefore(records, at, conversation)) : undefined;
  }
  chain.reverse();

  // Each reply's lines, and the result lines by the line they are parented to.
  const linesOfReply = new Map<string, TranscriptLine[]>();
  const resultsByParent = new Map<string, TranscriptLine[]>();
  const add = (map: Map<string, TranscriptLine[]>, key: string, entry: TranscriptLine) => {
    const list = map.get(key);
    if (list) list.push(entry);
    else map.set(key, [entry]);
  };
  for (const entry of records) {
    const id = assistantMessageId(entry.record);
    if (id !== undefined) add(linesOfReply, id, entry);
    else if (carriesToolResults(entry.record) && typeof entry.record.parentUuid === 'string') add(resultsByParent, entry.record.parentUuid, entry);
  }
  const answered = new Set(chain.flatMap((entry) => toolResultIds(entry.record)));
  const lastOfReply = new Map<string, TranscriptLine>();
  for (const entry of chain) {
    const id = assistantMessageId(entry.record);
    if (id !== undefined) lastOfReply.set(id, entry);
  }
  const takenBack = new Map<TranscriptLine, TranscriptLine[]>();
  for (const [id, anchor] of lastOfReply) {
    const lines = linesOfReply.get(id) ?? [];
    const candidates = [...lines, ...lines.flatMap((entry) => resultsByParent.get(String(entry.record.uuid)) ?? [])].sort((a, b) => a.line - b.line);
    const found: TranscriptLine[] = [];
    for (const entry of candidates) {
      const ids = toolResultIds(entry.record);
      // A result line whose calls are all answered already is a retry, not a missing answer.
      if (onThread.has(entry) || (ids.length > 0 && ids.every((resultId) => answered.has(resultId)))) continue;
      onThread.add(entry);
      for (const resultId of ids) answered.add(resultId);
      found.push(entry);
    }
    if (found.length > 0) takenBack.set(anchor, found);
  }
  const thread = chain.flatMap((entry) => [entry, ...(takenBack.get(entry) ?? [])]);
  return { thread, leftOut: records.filter((entry) => !onThread.has(entry)) };
}

/**
 * Reads a Claude Code session: user and assistant records carry Anthropic `message.content`
 * blocks (an assistant reply is written one block per line, joined here by message id); side-chains
 * (sub-agents) are left out; a compaction boundary is a `clear`, and the session titles
 * (`summary` records) become marks, so nothing in the file is lost without a trace.
 */
export function convertClaudeCodeTranscript(records: readonly TranscriptLine[], strict: boolean): Transcript {
  const skipped: Record<string, number> = {};
  const skip = (reason: string) => {
    skipped[reason] = (skipped[reason] ?? 0) + 1;
  };
  // A blank title names nothing: a mark needs a visible label.
  const titles = records.filter(({ record }) => record.type === 'summary' && typeof record.summary === 'string' && record.summary.trim() !== '');
  const mainLines = records.filter(({ record }) => {
    if (record.type === 'summary') return false;
    if (record.isSidechain === true) {
      skip('side-chain');
      return false;
    }
    return true;
  });
  const { thread, leftOut } = mainThread(mainLines);
  for (const { record } of leftOut) skip(offThreadReason(record));

  const events: Message[][] = [titles.map(({ record }) => ({ role: 'event', kind: 'mark', label: String(record.summary) }))];
  const segments: Segment<AnthropicEntry>[] = [{ entries: [] }];
  let model: string | undefined;
  let lastAssistantId: string | undefined;
  let reply: AnthropicEntry | undefined;
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
      skip(record.type === 'progress' ? 'progress' : 'other record');
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
      // One reply, one line per content block: join the blocks back into one message, also
      // when the result of an earlier call of the same reply was written between them.
      if (id !== undefined && id === lastAssistantId && reply && Array.isArray(reply.content) && Array.isArray(content)) {
        for (const part of content) reply.content.push(part);
        continue;
      }
      lastAssistantId = id;
      // A copy: later blocks of the reply are added to it, never to the parsed line.
      reply = { role: 'assistant', content: Array.isArray(content) ? [...content] : content };
      current.entries.push({ line, entry: reply });
    } else {
      if (!carriesToolResults(record)) lastAssistantId = undefined;
      current.entries.push({ line, entry: { role: 'user', content } });
    }
  }
  const { converted, broken } = convertSegments(segments, (messages, options) => convertFromAnthropic({ messages }, options), strict);
  const messages = converted.flatMap((request, index) => [...(events[index] ?? []), ...request.messages]);
  return {
    format: 'claude-code',
    messages,
    options: model === undefined ? {} : { model },
    brokenLines: broken satisfies BrokenLine[],
    skipped,
  };
}
