import { isRecord } from '../message/is-record.js';
import type { ModelMessage } from '../message/message.js';
import { convertFromOpenAiChat } from '../providers/openai/chat/convert-from-openai-chat.js';
import { markedInterrupted, type RecordedReply, type ReplyReader, type StreamRecorder, unlessEmpty } from './recorded-reply.js';

/** The assistant message of a Chat Completions answer, read as a request's message is (so that the client's echo of it matches). */
function assistantOfChat(message: unknown): ModelMessage | undefined {
  try {
    return unlessEmpty(convertFromOpenAiChat({ messages: [message] }).messages.find((entry): entry is ModelMessage => entry.role === 'assistant'));
  } catch {
    return undefined;
  }
}

function recordChatStream(): StreamRecorder {
  let text = '';
  let usage: unknown;
  let finished = false;
  let done = false;
  const calls: { id: string; name: string; arguments: string }[] = [];
  return {
    take({ data }) {
      if (data === undefined) {
        done = true;
        return;
      }
      if (!isRecord(data)) return;
      if (isRecord(data.usage)) usage = data.usage;
      const choice = Array.isArray(data.choices) ? (data.choices[0] as unknown) : undefined;
      if (!isRecord(choice)) return;
      if (typeof choice.finish_reason === 'string') finished = true;
      const delta = isRecord(choice.delta) ? choice.delta : {};
      if (typeof delta.content === 'string') text += delta.content;
      for (const call of Array.isArray(delta.tool_calls) ? (delta.tool_calls as unknown[]) : []) {
        if (!isRecord(call) || typeof call.index !== 'number') continue;
        const entry = (calls[call.index] ??= { id: '', name: '', arguments: '' });
        const fn = isRecord(call.function) ? call.function : {};
        if (typeof call.id === 'string') entry.id = call.id;
        if (typeof fn.name === 'string') entry.name += fn.name;
        if (typeof fn.arguments === 'string') entry.arguments += fn.arguments;
      }
    },
    get complete() {
      return done || finished;
    },
    reply(interrupted) {
      // A call cut short has arguments that may not parse: an interrupted answer keeps its text only.
      const toolCalls = interrupted ? [] : calls.filter(Boolean).map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }));
      const message = assistantOfChat({ role: 'assistant', content: text === '' ? null : text, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) });
      return { message: message && interrupted ? markedInterrupted(message) : message, usage };
    },
  };
}

/** Chat Completions answers: `choices[0].message` and `usage`, or the chunks of a stream. */
export const openAiChatReply: ReplyReader = {
  fromBody(body): RecordedReply {
    if (!isRecord(body) || !Array.isArray(body.choices)) return { message: undefined, usage: undefined };
    const choice = body.choices[0] as unknown;
    return { message: isRecord(choice) ? assistantOfChat(choice.message) : undefined, usage: body.usage };
  },
  recordStream: recordChatStream,
};
