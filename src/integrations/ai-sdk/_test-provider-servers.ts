import { checkPairing } from '../../exchange/check-pairing.js';
import type { Message } from '../../message/message.js';
import { convertFrom } from '../../providers/wire-format.js';
import { startLoopbackServer, type LoopbackAnswer, type ReceivedRequest } from '../../testing/loopback-server.js';
import type { TokenCounter } from '../../tokens/token-counter.js';

/** What a scripted provider received, as neutral messages. */
export interface SeenRequest {
  readonly messages: Message[];
  readonly tokens: number;
  readonly overflowed: boolean;
}

/**
 * The script both servers play: a user message is answered with two parallel `lookup` calls, the
 * tool results with a text answer naming the turn. `overflowNext()` makes the next request fail
 * with the provider's context-overflow error, naming a limit just below it.
 */
interface Script {
  readonly seen: SeenRequest[];
  overflowNext(): void;
  readonly url: string;
  close(): Promise<void>;
}

const lastUserText = (messages: readonly Message[]): string => {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role !== 'user') continue;
    if (typeof message.content === 'string') return message.content;
    const text = message.content.find((part) => part.type === 'text');
    if (text) return text.text;
  }
  return '';
};

/** True when the request's last message carries tool results (it answers the model's calls). */
const answersTools = (messages: readonly Message[]): boolean => {
  const last = messages.at(-1);
  return last?.role === 'tool' || (last?.role === 'user' && Array.isArray(last.content) && last.content.some((part) => part.type === 'tool-result'));
};

async function scriptedServer(
  format: 'openai-chat' | 'anthropic',
  count: (body: unknown, messages: Message[]) => number,
  answer: (input: { streaming: boolean; tokens: number; calls: string[] | undefined; text: string; overflow: boolean }) => LoopbackAnswer,
): Promise<Script> {
  const seen: SeenRequest[] = [];
  let overflow = false;
  let calls = 0;
  const server = await startLoopbackServer((request: ReceivedRequest) => {
    const body = request.body as { stream?: boolean };
    const { messages } = convertFrom(format, body);
    const tokens = count(body, messages);
    const overflowed = overflow;
    overflow = false;
    seen.push({ messages, tokens, overflowed });
    const turn = lastUserText(messages);
    calls += 1;
    return answer({
      streaming: body.stream === true,
      tokens,
      calls: answersTools(messages) ? undefined : [`call_${calls}_a`, `call_${calls}_b`],
      text: `answer to ${turn}`,
      overflow: overflowed,
    });
  });
  return { seen, overflowNext: () => (overflow = true), url: server.url, close: server.close };
}

/** A loopback OpenAI Chat Completions server; it counts each request exactly with `counter` and reports that as the usage. */
export function openAiServer(counter: TokenCounter, model: string): Promise<Script> {
  const count = (body: unknown) => {
    const converted = convertFrom('openai-chat', body);
    return counter.count({ provider: 'openai', model, request: { system: converted.system, tools: converted.tools, messages: converted.messages as never } }).tokens;
  };
  return scriptedServer('openai-chat', count, ({ streaming, tokens, calls, text, overflow }) => {
    if (overflow) {
      return { status: 400, body: { error: {
        message: `This model's maximum context length is ${tokens - 200} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
        type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded',
      } } };
    }
    const usage = { prompt_tokens: tokens, completion_tokens: 12, total_tokens: tokens + 12 };
    const toolCalls = calls?.map((id, index) => ({ id, type: 'function', function: { name: 'lookup', arguments: JSON.stringify({ topic: `${id}-${index}` }) } }));
    if (!streaming) {
      return { status: 200, body: {
        id: 'chatcmpl-1', object: 'chat.completion', created: 1763683200, model,
        choices: [{ index: 0, message: { role: 'assistant', content: toolCalls ? null : text, ...(toolCalls ? { tool_calls: toolCalls } : {}) }, finish_reason: toolCalls ? 'tool_calls' : 'stop' }],
        usage,
      } };
    }
    const chunk = (delta: unknown, finish: string | null = null, withUsage: unknown = null) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1763683200, model, choices: delta === null ? [] : [{ index: 0, delta, finish_reason: finish }], usage: withUsage })}\n\n`;
    const events = [chunk({ role: 'assistant', content: toolCalls ? null : '' })];
    if (toolCalls) {
      toolCalls.forEach((call, index) => {
        events.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: 'lookup', arguments: '' } }] }));
        events.push(chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] }));
      });
    } else {
      events.push(chunk({ content: text.slice(0, 5) }), chunk({ content: text.slice(5) }));
    }
    events.push(chunk({}, toolCalls ? 'tool_calls' : 'stop'), chunk(null, null, usage), 'data: [DONE]\n\n');
    return { status: 200, sse: events.join('') };
  });
}

/** A loopback Anthropic Messages server; the usage it reports is our (estimated) count. */
export function anthropicServer(counter: TokenCounter, model: string): Promise<Script> {
  const count = (_body: unknown, messages: Message[]) => {
    const converted = convertFrom('anthropic', _body);
    return counter.count({ provider: 'anthropic', model, request: { system: converted.system, tools: converted.tools, messages: messages as never } }).tokens;
  };
  return scriptedServer('anthropic', count, ({ streaming, tokens, calls, text, overflow }) => {
    if (overflow) {
      return { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: `prompt is too long: ${tokens} tokens > ${tokens - 200} maximum` } } };
    }
    const content = calls
      ? calls.map((id, index) => ({ type: 'tool_use', id: id.replace('call', 'toolu'), name: 'lookup', input: { topic: `${id}-${index}` } }))
      : [{ type: 'text', text }];
    const stopReason = calls ? 'tool_use' : 'end_turn';
    if (!streaming) {
      return { status: 200, body: { id: 'msg_1', type: 'message', role: 'assistant', model, content, stop_reason: stopReason, stop_sequence: null, usage: { input_tokens: tokens, output_tokens: 12 } } };
    }
    const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const events = [event('message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: tokens, output_tokens: 1 } } })];
    content.forEach((block, index) => {
      if (!('input' in block)) {
        events.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
        events.push(event('content_block_delta', { index, delta: { type: 'text_delta', text: text.slice(0, 5) } }));
        events.push(event('content_block_delta', { index, delta: { type: 'text_delta', text: text.slice(5) } }));
      } else {
        events.push(event('content_block_start', { index, content_block: { ...block, input: {} } }));
        events.push(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } }));
      }
      events.push(event('content_block_stop', { index }));
    });
    events.push(event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 12 } }), event('message_stop', {}));
    return { status: 200, sse: events.join('') };
  });
}

/** Pairing problems of a request (orphaned calls or results), none for a sound one. */
export const pairingProblems = (messages: readonly Message[]) => checkPairing(messages);
