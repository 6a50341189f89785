import { isRecord } from '../message/is-record.js';
import type { ModelMessage } from '../message/message.js';
import { convertFromOpenAiResponses } from '../providers/openai/responses/convert-from-openai-responses.js';
import { markedInterrupted, type RecordedReply, type ReplyReader, type StreamRecorder, unlessEmpty } from './recorded-reply.js';

/** The assistant message a Responses `output` makes, read as a request's `input` is (so that the client's echo of it matches). */
function assistantOfOutput(output: readonly unknown[]): ModelMessage | undefined {
  try {
    // The converter makes consecutive assistant items one turn: one message.
    return unlessEmpty(convertFromOpenAiResponses({ input: output }).messages.find((entry): entry is ModelMessage => entry.role === 'assistant'));
  } catch {
    return undefined;
  }
}

function recordResponsesStream(): StreamRecorder {
  const items: unknown[] = [];
  let partialText = '';
  let completed: Record<string, unknown> | undefined;
  return {
    take({ data }) {
      if (!isRecord(data)) return;
      if (data.type === 'response.output_item.done' && isRecord(data.item)) {
        items.push(data.item);
        partialText = '';
      } else if (data.type === 'response.output_text.delta' && typeof data.delta === 'string') partialText += data.delta;
      else if ((data.type === 'response.completed' || data.type === 'response.incomplete') && isRecord(data.response)) completed = data.response;
    },
    get complete() {
      return completed !== undefined;
    },
    reply(interrupted) {
      if (completed && !interrupted) {
        const output = Array.isArray(completed.output) ? (completed.output as unknown[]) : items;
        return { message: assistantOfOutput(output), usage: completed.usage };
      }
      const finished = items.filter((item) => !isRecord(item) || item.type !== 'function_call' || typeof item.arguments === 'string');
      const partial = partialText === '' ? [] : [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: partialText }] }];
      const message = assistantOfOutput([...finished, ...partial]);
      return { message: message ? markedInterrupted(message) : undefined, usage: undefined };
    },
  };
}

/** Responses answers: `output` and `usage`, or the events of a stream (`response.completed` holds the whole). */
export const openAiResponsesReply: ReplyReader = {
  fromBody(body): RecordedReply {
    if (!isRecord(body) || !Array.isArray(body.output)) return { message: undefined, usage: undefined };
    return { message: assistantOfOutput(body.output as unknown[]), usage: body.usage };
  },
  recordStream: recordResponsesStream,
};
