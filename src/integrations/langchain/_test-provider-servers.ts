import { convertFromAnthropic } from '../../providers/anthropic/convert-from-anthropic.js';
import { convertFromOpenAiChat } from '../../providers/openai/chat/convert-from-openai-chat.js';
import { isRecord } from '../../message/is-record.js';
import type { ModelMessage } from '../../message/message.js';
import { type ReceivedRequest, startLoopbackServer } from '../../testing/loopback-server.js';
import type { TokenCounter } from '../../tokens/token-counter.js';

/** What a scripted model answers: text, and tool calls (several at once for parallel calls). */
export interface ScriptedReply {
  readonly text?: string | undefined;
  readonly toolCalls?: readonly { readonly name: string; readonly input: Record<string, unknown> }[] | undefined;
}

/** A request a scripted server took apart: its neutral messages, its exact count, and whether it was refused as too long. */
export interface SeenRequest {
  readonly messages: readonly ModelMessage[];
  readonly system: string | undefined;
  readonly tokens: number;
  readonly stream: boolean;
  readonly refused: boolean;
}

interface ServerOptions {
  /** Chooses the reply from the neutral messages received. */
  readonly reply: (messages: readonly ModelMessage[]) => ScriptedReply;
  readonly counter: TokenCounter;
  readonly model: string;
  /** Requests above this many tokens are answered with the provider's context-overflow error. */
  readonly contextLimitTokens: number;
}

let replies = 0;
const nextId = (prefix: string) => `${prefix}${String(++replies).padStart(4, '0')}`;

const sse = (events: readonly unknown[], named: boolean) =>
  events.map((event) => `${named && isRecord(event) && typeof event.type === 'string' ? `event: ${event.type}\n` : ''}data: ${JSON.stringify(event)}\n\n`).join('');

/**
 * An OpenAI-compatible Chat Completions server on 127.0.0.1 that answers from a script, streamed
 * or not, reports the exact prompt tokens as usage, and refuses a request over its limit with
 * OpenAI's `context_length_exceeded`.
 */
export async function startOpenAiServer(options: ServerOptions) {
  const seen: SeenRequest[] = [];
  const target = { provider: 'openai', model: options.model };
  const server = await startLoopbackServer((request: ReceivedRequest) => {
    const body = isRecord(request.body) ? request.body : {};
    const { messages, tools } = convertFromOpenAiChat(body);
    const [first, ...rest] = messages.filter((message) => message.role !== 'event');
    // The first system message is the system prompt, which OpenAI renders together with the tools.
    const system = first?.role === 'system' ? first.content : undefined;
    const modelMessages = system === undefined && first ? [first, ...rest] : rest;
    const tokens = options.counter.count({ ...target, request: { system, tools, messages: modelMessages } }).tokens;
    const stream = body.stream === true;
    const refused = tokens > options.contextLimitTokens;
    seen.push({ messages: modelMessages, system, tokens, stream, refused });
    if (refused) {
      return {
        status: 400,
        body: { error: { message: `This model's maximum context length is ${options.contextLimitTokens} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`, type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } },
      };
    }
    const reply = options.reply(modelMessages);
    const id = nextId('chatcmpl-');
    const calls = (reply.toolCalls ?? []).map((call) => ({ id: nextId('call_'), type: 'function', function: { name: call.name, arguments: JSON.stringify(call.input) } }));
    const usage = { prompt_tokens: tokens, completion_tokens: 10, total_tokens: tokens + 10 };
    const finishReason = calls.length > 0 ? 'tool_calls' : 'stop';
    if (!stream) {
      const message = { role: 'assistant', content: reply.text ?? null, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
      return { status: 200, body: { id, object: 'chat.completion', created: 1763683200, model: options.model, choices: [{ index: 0, message, finish_reason: finishReason }], usage } };
    }
    const chunk = (delta: unknown, finish: string | null = null, withUsage: unknown = null) =>
      ({ id, object: 'chat.completion.chunk', created: 1763683200, model: options.model, choices: delta === null ? [] : [{ index: 0, delta, finish_reason: finish }], usage: withUsage });
    const events: unknown[] = [chunk({ role: 'assistant', content: reply.text === undefined ? null : '' })];
    if (reply.text !== undefined) events.push(chunk({ content: reply.text }));
    calls.forEach((call, index) => {
      events.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
      events.push(chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] }));
    });
    events.push(chunk({}, finishReason), chunk(null, null, usage));
    return { status: 200, sse: `${sse(events, false)}data: [DONE]\n\n` };
  });
  return { url: `${server.url}/v1`, seen, close: server.close };
}

/**
 * An Anthropic Messages server on 127.0.0.1 that answers from a script, streamed or not, and
 * refuses a request over its limit with Anthropic's `prompt is too long`. Its counts are our
 * estimate for Claude (Anthropic publishes no tokenizer).
 */
export async function startAnthropicServer(options: ServerOptions) {
  const seen: SeenRequest[] = [];
  const target = { provider: 'anthropic', model: options.model };
  const server = await startLoopbackServer((request: ReceivedRequest) => {
    const body = isRecord(request.body) ? request.body : {};
    const { messages, tools, system } = convertFromAnthropic(body);
    const modelMessages = messages.filter((message) => message.role !== 'event');
    const tokens = options.counter.count({ ...target, request: { system, tools, messages: modelMessages } }).tokens;
    const stream = body.stream === true;
    const refused = tokens > options.contextLimitTokens;
    seen.push({ messages: modelMessages, system, tokens, stream, refused });
    if (refused) {
      return { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: `prompt is too long: ${tokens} tokens > ${options.contextLimitTokens} maximum` } } };
    }
    const reply = options.reply(modelMessages);
    const content = [
      ...(reply.text === undefined ? [] : [{ type: 'text' as const, text: reply.text }]),
      ...(reply.toolCalls ?? []).map((call) => ({ type: 'tool_use' as const, id: nextId('toolu_'), name: call.name, input: call.input })),
    ];
    const stopReason = (reply.toolCalls ?? []).length > 0 ? 'tool_use' : 'end_turn';
    const usage = { input_tokens: tokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 10 };
    const message = { id: nextId('msg_'), type: 'message', role: 'assistant', model: options.model, content, stop_reason: stopReason, stop_sequence: null, usage };
    if (!stream) return { status: 200, body: message };
    const events: unknown[] = [{ type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } }];
    content.forEach((block, index) => {
      if (block.type === 'text') {
        events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
        events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } });
      } else {
        events.push({ type: 'content_block_start', index, content_block: { ...block, input: {} } });
        events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
      }
      events.push({ type: 'content_block_stop', index });
    });
    events.push({ type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 10 } }, { type: 'message_stop' });
    return { status: 200, sse: sse(events, true) };
  });
  return { url: server.url, seen, close: server.close };
}
