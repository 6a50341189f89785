import type { Message } from '../message/message.js';
import { convertFrom } from '../providers/wire-format.js';
import { type LoopbackAnswer, type ReceivedRequest, startLoopbackServer } from '../testing/loopback-server.js';
import type { TokenCounter } from '../tokens/token-counter.js';

type Format = 'openai-chat' | 'openai-responses' | 'anthropic';

/** A windowed request the upstream received, taken apart. */
export interface SeenRequest {
  readonly format: Format;
  readonly body: Record<string, unknown>;
  readonly headers: ReceivedRequest['headers'];
  readonly system: string | undefined;
  readonly tools: NonNullable<ReturnType<typeof convertFrom>['tools']>;
  readonly messages: Message[];
  /** The request as our counter counts it, reported back as its usage. */
  readonly tokens: number;
  /** It was answered with a context overflow. */
  readonly refused: boolean;
}

const FORMATS: Readonly<Record<string, Format>> = { '/v1/chat/completions': 'openai-chat', '/v1/responses': 'openai-responses', '/v1/messages': 'anthropic' };

function lastUserText(messages: readonly Message[]): string {
  for (const message of [...messages].reverse()) {
    if (message.role !== 'user') continue;
    if (typeof message.content === 'string') return message.content;
    const text = message.content.find((part) => part.type === 'text');
    if (text) return text.text;
  }
  return '';
}

const answersTools = (messages: readonly Message[]) => {
  const last = messages.at(-1);
  return last?.role === 'tool' || (last?.role === 'user' && Array.isArray(last.content) && last.content.some((part) => part.type === 'tool-result'));
};

interface Reply {
  readonly tokens: number;
  readonly model: string;
  /** Parallel `read_file` calls, or undefined for a text answer. */
  readonly calls: readonly string[] | undefined;
  readonly text: string;
}

const sse = (data: unknown, event?: string) => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

function chatAnswer({ tokens, model, calls, text }: Reply, streaming: boolean): { body: unknown; events: string[] } {
  const usage = { prompt_tokens: tokens, completion_tokens: 12, total_tokens: tokens + 12 };
  const toolCalls = calls?.map((id) => ({ id, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `${id}.txt` }) } }));
  const message = { role: 'assistant', content: toolCalls ? null : text, refusal: null, ...(toolCalls ? { tool_calls: toolCalls } : {}) };
  const body = { id: 'chatcmpl-1', object: 'chat.completion', created: 1763683200, model, choices: [{ index: 0, message, logprobs: null, finish_reason: toolCalls ? 'tool_calls' : 'stop' }], usage };
  if (!streaming) return { body, events: [] };
  const chunk = (delta: unknown, finish: string | null = null) => sse({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1763683200, model, choices: [{ index: 0, delta, finish_reason: finish }] });
  const events = [chunk({ role: 'assistant', content: toolCalls ? null : '' })];
  if (toolCalls) {
    toolCalls.forEach((call, index) => {
      events.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: 'read_file', arguments: '' } }] }));
      events.push(chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] }));
    });
  } else for (const piece of [text.slice(0, 6), text.slice(6)]) events.push(chunk({ content: piece }));
  events.push(chunk({}, toolCalls ? 'tool_calls' : 'stop'), sse({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1763683200, model, choices: [], usage }), 'data: [DONE]\n\n');
  return { body, events };
}

function anthropicAnswer({ tokens, model, calls, text }: Reply, streaming: boolean): { body: unknown; events: string[] } {
  const content = calls ? calls.map((id) => ({ type: 'tool_use', id: id.replace('call', 'toolu'), name: 'read_file', input: { path: `${id}.txt` } })) : [{ type: 'text', text }];
  const stopReason = calls ? 'tool_use' : 'end_turn';
  const usage = { input_tokens: tokens, output_tokens: 12 };
  const body = { id: 'msg_1', type: 'message', role: 'assistant', model, content, stop_reason: stopReason, stop_sequence: null, usage };
  if (!streaming) return { body, events: [] };
  const event = (type: string, data: Record<string, unknown>) => sse({ type, ...data }, type);
  const events = [event('message_start', { message: { ...body, content: [], stop_reason: null, usage: { input_tokens: tokens, output_tokens: 1 } } })];
  content.forEach((block, index) => {
    if ('input' in block) {
      events.push(event('content_block_start', { index, content_block: { ...block, input: {} } }));
      events.push(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } }));
    } else {
      events.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      for (const piece of [text.slice(0, 6), text.slice(6)]) events.push(event('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }));
    }
    events.push(event('content_block_stop', { index }));
  });
  events.push(event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 12 } }), event('message_stop', {}));
  return { body, events };
}

function responsesAnswer({ tokens, model, calls, text }: Reply, streaming: boolean): { body: unknown; events: string[] } {
  const output = calls
    ? calls.map((id, index) => ({ type: 'function_call', id: `fc_${id}_${index}`, call_id: id, name: 'read_file', arguments: JSON.stringify({ path: `${id}.txt` }), status: 'completed' }))
    : [{ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] }];
  const usage = { input_tokens: tokens, input_tokens_details: { cached_tokens: 0 }, output_tokens: 12, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: tokens + 12 };
  const body = { id: 'resp_1', object: 'response', created_at: 1763683200, status: 'completed', model, output, usage, error: null, incomplete_details: null };
  if (!streaming) return { body, events: [] };
  let sequence = 0;
  const event = (type: string, data: Record<string, unknown>) => sse({ type, sequence_number: sequence++, ...data }, type);
  const events = [event('response.created', { response: { ...body, status: 'in_progress', output: [], usage: null } })];
  output.forEach((item, index) => {
    events.push(event('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress' } }));
    if (item.type === 'message') for (const piece of [text.slice(0, 6), text.slice(6)]) events.push(event('response.output_text.delta', { item_id: item.id, output_index: index, content_index: 0, delta: piece }));
    events.push(event('response.output_item.done', { output_index: index, item }));
  });
  events.push(event('response.completed', { response: body }));
  return { body, events };
}

const ANSWERS = { 'openai-chat': chatAnswer, 'anthropic': anthropicAnswer, 'openai-responses': responsesAnswer };

function overflowAnswer(format: Format, tokens: number): LoopbackAnswer {
  const limit = tokens - 300;
  if (format === 'anthropic') return { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: `prompt is too long: ${tokens} tokens > ${limit} maximum` } } };
  return { status: 400, body: { error: {
    message: `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
    type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded',
  } } };
}

/**
 * A loopback upstream that speaks Chat Completions, Responses and Messages, streamed or not, and
 * plays a script: a user's message is answered with two parallel `read_file` calls (text when the
 * request offers no tools), the tool results with text. It counts each request with `counter` and reports that as its usage. The
 * next answer can be made a context overflow, an error, or a stream that stops halfway and hangs.
 */
export async function startScriptedUpstream(counter: TokenCounter) {
  const seen: SeenRequest[] = [];
  let next: { kind: 'overflow' } | { kind: 'fail'; answer: LoopbackAnswer } | { kind: 'hang' } | { kind: 'cut' } | undefined;
  let callNumber = 0;
  const server = await startLoopbackServer((request) => {
    if (request.method === 'GET' && request.path === '/v1/models') return { status: 200, body: { object: 'list', data: [{ id: 'gpt-4o', object: 'model', created: 1, owned_by: 'scripted' }] } };
    if (request.path === '/v1/messages/count_tokens') return { status: 200, body: { input_tokens: 42 } };
    const format = FORMATS[request.path.split('?')[0] ?? ''];
    if (!format) return { status: 404, body: { error: { message: `no route ${request.path}` } } };
    const body = request.body as Record<string, unknown>;
    if (body.previous_response_id !== undefined) return { status: 200, body: responsesAnswer({ tokens: 1, model: String(body.model), calls: undefined, text: 'continued upstream' }, false).body };
    const converted = convertFrom(format, body);
    const model = String(body.model);
    const provider = format === 'anthropic' ? 'anthropic' : 'openai';
    const tokens = counter.count({ provider, model, request: { system: converted.system, tools: converted.tools, messages: converted.messages as never } }).tokens;
    const planned = next;
    next = undefined;
    seen.push({ format, body, headers: request.headers, system: converted.system, tools: converted.tools ?? [], messages: converted.messages, tokens, refused: planned?.kind === 'overflow' });
    if (planned?.kind === 'overflow') return overflowAnswer(format, tokens);
    if (planned?.kind === 'fail') return planned.answer;
    callNumber += 1;
    const reply: Reply = {
      tokens,
      model,
      calls: answersTools(converted.messages) || !converted.tools?.length ? undefined : [`call_${callNumber}_a`, `call_${callNumber}_b`],
      text: `done: ${lastUserText(converted.messages)}`,
    };
    const streaming = body.stream === true;
    const { body: answer, events } = ANSWERS[format](reply, streaming);
    if (!streaming) return { status: 200, body: answer };
    if (planned?.kind === 'hang' || planned?.kind === 'cut') {
      // Up to the first piece of text (or half the events), then nothing more.
      const firstPiece = events.findIndex((event) => event.includes(JSON.stringify(reply.text.slice(0, 6))));
      const sent = events.slice(0, firstPiece >= 0 ? firstPiece + 1 : Math.floor(events.length / 2)).join('');
      return planned.kind === 'hang' ? { status: 200, sse: sent, hold: true } : { status: 200, sse: sent, cut: true };
    }
    return { status: 200, sse: events.join('') };
  });
  return {
    url: server.url,
    seen,
    received: server.received,
    /** The next request is refused as too long, naming a limit 300 tokens below it. */
    overflowNext: () => (next = { kind: 'overflow' }),
    failNext: (answer: LoopbackAnswer) => (next = { kind: 'fail', answer }),
    /** The next streamed answer stops after its first piece of text and the connection stays open. */
    hangNext: () => (next = { kind: 'hang' }),
    /** The next streamed answer stops after its first piece of text and the connection is cut. */
    cutNext: () => (next = { kind: 'cut' }),
    close: server.close,
  };
}
