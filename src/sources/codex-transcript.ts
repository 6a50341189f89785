import { isRecord } from '../message/is-record.js';
import type { Message } from '../message/message.js';
import { convertFromOpenAiResponses } from '../providers/openai/responses/convert-from-openai-responses.js';
import { convertSegments, type Segment, type Transcript, type TranscriptLine } from './transcript.js';

const ENVELOPE_TYPES = ['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted'];
const ITEM_TYPES = ['message', 'function_call', 'function_call_output', 'reasoning', 'custom_tool_call', 'custom_tool_call_output', 'local_shell_call'];

/** True for a line of a Codex CLI rollout (`~/.codex/sessions/…/rollout-*.jsonl`), in either generation. */
export function isCodexRecord(record: Readonly<Record<string, unknown>>): boolean {
  if (ENVELOPE_TYPES.includes(String(record.type)) && 'payload' in record) return true;
  return ITEM_TYPES.includes(String(record.type)) && ('role' in record || 'call_id' in record);
}

/** A rollout item in the shape the Responses converter reads; Codex's own tool item kinds mapped to function calls. */
function responsesItem(item: Record<string, unknown>, line: number): Record<string, unknown> | undefined {
  switch (item.type) {
    case 'message':
    case 'function_call':
    case 'function_call_output':
      return item;
    case 'reasoning':
      // Rollouts keep reasoning without its id; the converter wants one.
      return { ...item, id: typeof item.id === 'string' ? item.id : `rs_line_${line}`, summary: Array.isArray(item.summary) ? item.summary : [] };
    case 'custom_tool_call':
      return { type: 'function_call', call_id: item.call_id, name: item.name, arguments: JSON.stringify({ input: item.input }) };
    case 'custom_tool_call_output':
      return { type: 'function_call_output', call_id: item.call_id, output: item.output };
    case 'local_shell_call':
      return { type: 'function_call', call_id: item.call_id ?? item.id, name: 'local_shell', arguments: JSON.stringify(item.action ?? {}) };
    default:
      return undefined;
  }
}

/**
 * Reads a Codex CLI rollout: `response_item` payloads are Responses API items (messages,
 * function calls and their outputs, reasoning), `turn_context` names the model, `session_meta`
 * may carry the instructions, and a `compacted` record is a `clear` followed by the summary Codex
 * continued from, as a user message. The blocks Codex injects as user messages (its environment
 * context, AGENTS.md instructions) are system messages sent as user ones, as the Responses
 * converter reads them. The older rollouts
 * without the envelope read the same way.
 */
export function convertCodexTranscript(records: readonly TranscriptLine[], strict: boolean): Transcript {
  const skipped: Record<string, number> = {};
  const skip = (reason: string) => {
    skipped[reason] = (skipped[reason] ?? 0) + 1;
  };
  const events: Message[][] = [[]];
  const segments: Segment<Record<string, unknown>>[] = [{ entries: [] }];
  let model: string | undefined;
  let system: string | undefined;
  for (const { line, record } of records) {
    const payload = isRecord(record.payload) ? record.payload : undefined;
    const type = payload ? record.type : 'response_item';
    const body = payload ?? record;
    if (type === 'session_meta' || (!payload && typeof record.id === 'string' && typeof record.timestamp === 'string' && !('type' in record))) {
      if (typeof body.instructions === 'string' && body.instructions !== '') system = body.instructions;
      continue;
    }
    if (type === 'turn_context') {
      if (typeof body.model === 'string') model = body.model;
      continue;
    }
    if (type === 'compacted') {
      events.push([{ role: 'event', kind: 'clear' }]);
      segments.push({ entries: typeof body.message === 'string' ? [{ line, entry: { type: 'message', role: 'user', content: body.message } }] : [] });
      continue;
    }
    if (type !== 'response_item') {
      skip(type === 'event_msg' ? 'event (shown in the Codex UI, duplicated by the items)' : 'other record');
      continue;
    }
    const item = responsesItem(body, line);
    if (!item) {
      skip(`item ${String(body.type)}`);
      continue;
    }
    (segments.at(-1) as Segment<Record<string, unknown>>).entries.push({ line, entry: item });
  }
  const { converted, broken } = convertSegments(segments, (input, options) => convertFromOpenAiResponses({ input }, options), strict);
  return {
    format: 'codex',
    system,
    messages: converted.flatMap((request, index) => [...(events[index] ?? []), ...request.messages]),
    options: model === undefined ? {} : { model },
    brokenLines: broken,
    skipped,
  };
}
