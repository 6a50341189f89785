import { isRecord } from '../message/is-record.js';
import type { ModelMessage } from '../message/message.js';
import { convertFromAnthropic } from '../providers/anthropic/convert-from-anthropic.js';
import { markedInterrupted, type RecordedReply, type ReplyReader, type StreamRecorder, unlessEmpty } from './recorded-reply.js';

/** The assistant message of a Messages answer's `content`, read as a request's message is (so that the client's echo of it matches). */
function assistantOfContent(content: readonly unknown[]): ModelMessage | undefined {
  try {
    return unlessEmpty(convertFromAnthropic({ messages: [{ role: 'assistant', content }] }).messages.find((entry): entry is ModelMessage => entry.role === 'assistant'));
  } catch {
    return undefined;
  }
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function recordAnthropicStream(): StreamRecorder {
  const blocks: Record<string, unknown>[] = [];
  const json: string[] = [];
  const stopped = new Set<number>();
  let usage: Record<string, unknown> = {};
  let done = false;
  return {
    take({ data }) {
      if (!isRecord(data) || typeof data.type !== 'string') return;
      const index = typeof data.index === 'number' ? data.index : -1;
      switch (data.type) {
        case 'message_start':
          if (isRecord(data.message) && isRecord(data.message.usage)) usage = { ...data.message.usage };
          break;
        case 'content_block_start':
          if (isRecord(data.content_block)) blocks[index] = { ...data.content_block };
          json[index] = '';
          break;
        case 'content_block_delta': {
          const block = blocks[index];
          const delta = isRecord(data.delta) ? data.delta : {};
          if (!block) break;
          if (delta.type === 'text_delta') block.text = text(block.text) + text(delta.text);
          else if (delta.type === 'input_json_delta') json[index] = (json[index] ?? '') + text(delta.partial_json);
          else if (delta.type === 'thinking_delta') block.thinking = text(block.thinking) + text(delta.thinking);
          else if (delta.type === 'signature_delta') block.signature = delta.signature;
          break;
        }
        case 'content_block_stop': {
          const block = blocks[index];
          const partial = json[index];
          if (block?.type === 'tool_use' && partial) {
            try {
              block.input = JSON.parse(partial) as unknown;
            } catch {
              block.input = { _raw_arguments: partial };
            }
          }
          stopped.add(index);
          break;
        }
        case 'message_delta':
          if (isRecord(data.usage)) usage = { ...usage, ...Object.fromEntries(Object.entries(data.usage).filter(([, value]) => value !== null)) };
          break;
        case 'message_stop':
          done = true;
          break;
        default:
          break;
      }
    },
    get complete() {
      return done;
    },
    reply(interrupted) {
      // Cut short, a tool call's input is unfinished JSON and a thinking block lacks its signature: only finished blocks and text are kept.
      const kept = blocks.filter((block, index) => Boolean(block) && (!interrupted || stopped.has(index) || block.type === 'text'));
      const message = assistantOfContent(kept);
      return { message: message && interrupted ? markedInterrupted(message) : message, usage: interrupted ? undefined : usage };
    },
  };
}

/** Messages answers: `content` and `usage`, or the events of a stream. */
export const anthropicReply: ReplyReader = {
  fromBody(body): RecordedReply {
    if (!isRecord(body) || !Array.isArray(body.content)) return { message: undefined, usage: undefined };
    return { message: assistantOfContent(body.content as unknown[]), usage: body.usage };
  },
  recordStream: recordAnthropicStream,
};
