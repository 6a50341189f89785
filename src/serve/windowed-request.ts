import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { PlacedCall } from '../conversation/conversation-registry.js';
import type { ConversationReport } from '../conversation/conversation.js';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import { isRecord } from '../message/is-record.js';
import { isModelMessage } from '../message/message.js';
import { answerError, answerJson } from './answer-client.js';
import { parseJsonBody } from './parse-json-body.js';
import { passThrough } from './pass-through.js';
import { providerErrorBody } from './provider-error-body.js';
import { agentHeaderOf } from './agent-header.js';
import { requireObjectToolInputs } from './anthropic-tool-inputs.js';
import { forwardedHeaders, returnedHeaders } from './forwarded-headers.js';
import type { ProxyContext } from './proxy-context.js';
import type { WindowedEndpoint } from './proxy-endpoints.js';
import type { ProxiedCall } from './proxy-conversations.js';
import { readRequestBody } from './read-request-body.js';
import { replyReaderFor } from './reply-readers.js';
import { streamToClient } from './stream-to-client.js';
import { UpstreamError } from './upstream-error.js';

/** The headers that tell the client what the proxy did with its request. */
function windowHeaders(agentId: string, report: ConversationReport | undefined, overheadMs: number): Record<string, string> {
  return {
    'x-sliding-context-agent': agentId,
    'x-sliding-context-window-tokens': String(report?.totalTokens ?? 0),
    'x-sliding-context-evicted-exchanges': String(report?.evictedExchanges ?? 0),
    'x-sliding-context-overhead-ms': overheadMs.toFixed(1),
  };
}

/**
 * An answer the client has, that could not be stored (another writer appended to the agent
 * meanwhile): the client's next request carries it, and it is stored then.
 */
function notStored(context: ProxyContext): (error: unknown) => void {
  return (error) => {
    context.onProblem(`an answer was sent but not stored: ${error instanceof Error ? error.message : String(error)}`);
  };
}

/** Reads and takes the body apart; bad input throws before anything is stored. */
interface ReadCall {
  readonly raw: Buffer;
  /** A Responses request on a conversation the upstream keeps (`previous_response_id`, `conversation`). */
  readonly upstreamState: boolean;
  readonly call: ProxiedCall;
  /** The body's other top-level fields, for the windowed body. */
  readonly options: Readonly<Record<string, unknown>>;
  readonly stream: boolean;
}

async function readCall(request: IncomingMessage, endpoint: WindowedEndpoint, context: ProxyContext): Promise<ReadCall> {
  const raw = await readRequestBody(request, context.bodyLimitBytes);
  const body = parseJsonBody(raw, 'the request body', context.earlierElements);
  if (!isRecord(body)) throw new SlidingContextError('INVALID_REQUEST_BODY', 'The request body is not a JSON object.');
  if (typeof body.model !== 'string' || body.model === '') throw new SlidingContextError('INVALID_REQUEST_BODY', 'model: expected the model\'s name, a string.');
  if (endpoint.format === 'anthropic') requireObjectToolInputs(body);
  const upstreamState = endpoint.format === 'openai-responses' && (Boolean(body.previous_response_id) || Boolean(body.conversation));
  const converted = upstreamState ? { messages: [], options: {} } : context.conversions.convert(endpoint.format, body);
  const messages = converted.messages.filter(isModelMessage);
  if (!upstreamState && !messages.some((message) => message.role === 'user')) {
    throw new SlidingContextError('INVALID_REQUEST_BODY', `${endpoint.format === 'openai-responses' ? 'input' : 'messages'}: the request holds no user message; a conversation starts with one.`);
  }
  return {
    raw,
    upstreamState,
    call: {
      endpoint,
      model: body.model,
      system: converted.system,
      tools: converted.tools,
      messages,
      pinned: agentHeaderOf(request),
    },
    options: converted.options,
    stream: body.stream === true,
  };
}

/**
 * A Chat Completions, Responses or Messages request: its new messages are stored, the windowed
 * body (in the client's format, every other field kept) goes upstream, a "too long" answer is
 * retried with a smaller window, and the answer goes back as it comes (streamed or whole) with the
 * proxy's headers; it is stored when it completes (a stream cut short: what arrived, marked interrupted).
 */
export async function handleWindowedRequest(
  request: IncomingMessage,
  response: ServerResponse,
  endpoint: WindowedEndpoint,
  target: { readonly path: string; readonly query: string },
  context: ProxyContext,
): Promise<void> {
  const started = performance.now();
  let placed: PlacedCall | undefined;
  let report: ConversationReport | undefined;
  let upstreamMs = 0;
  /** The upstream sent its answer's headers: a failure after them is its body breaking off, not the upstream out of reach. */
  let answered = false;
  const headersNow = () => (placed ? windowHeaders(placed.conversation.agentId, report, performance.now() - started - upstreamMs) : {});
  const aborted = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) aborted.abort();
  });
  try {
    const { raw, upstreamState, call, options, stream } = await readCall(request, endpoint, context);
    if (upstreamState) {
      await passThrough(request, response, target, context, raw);
      return;
    }
    placed = await context.conversations.place(call);
    const headers = forwardedHeaders(request.headers);
    headers.set('content-type', 'application/json');
    const url = `${context.upstreams[endpoint.api]}${target.path}${target.query}`;
    const upstream = await placed.conversation.send(async (body, planned) => {
      report = planned;
      // Serialized before the upstream's clock starts: it is the proxy's work.
      const bytes = context.bodyBytes.of(body);
      const sentAt = performance.now();
      try {
        const answer = await fetch(url, { method: 'POST', headers, body: bytes, signal: aborted.signal });
        if (!answer.ok) throw new UpstreamError(answer.status, answer.headers, await answer.text());
        return answer;
      } finally {
        upstreamMs += performance.now() - sentAt;
      }
    }, { bodyOptions: options });
    answered = true;
    const reader = replyReaderFor(endpoint.format);
    const isStream = stream && (upstream.headers.get('content-type') ?? '').includes('text/event-stream');
    if (isStream) {
      const streamed = await streamToClient(upstream, response, { ...returnedHeaders(upstream.headers), ...headersNow() }, reader.recordStream(), aborted);
      await context.conversations.finish(placed, streamed).catch(notStored(context));
      return;
    }
    const sentAt = performance.now();
    const text = await upstream.text();
    upstreamMs += performance.now() - sentAt;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text) as unknown;
    } catch {
      parsed = undefined;
    }
    // Queued before the answer is sent: the client's next request is placed after it is stored.
    const finished = context.conversations.finish(placed, reader.fromBody(parsed)).catch(notStored(context));
    const returned = { ...returnedHeaders(upstream.headers), ...headersNow() };
    response.writeHead(upstream.status, returned);
    response.end(text);
    await finished;
  } catch (error) {
    // A refusal after the overflow retries carries the upstream's last answer.
    const cause = error instanceof SlidingContextError ? error.cause : undefined;
    const upstreamError = error instanceof UpstreamError ? error : cause instanceof UpstreamError ? cause : undefined;
    if (upstreamError) {
      // The upstream's own answer, as it gave it; the user's turn stays stored.
      if (!response.headersSent) {
        response.writeHead(upstreamError.status, { ...returnedHeaders(upstreamError.responseHeaders), ...headersNow() });
        response.end(upstreamError.bodyText);
      }
      return;
    }
    if (aborted.signal.aborted) return;
    if (error instanceof TypeError && placed && answered) {
      // Its headers came, then the body broke off.
      context.onProblem(`upstream ${endpoint.api} answer broke off: ${error.message}`);
      answerJson(response, 502, providerErrorBody(endpoint.api, 502, `sliding-context: the upstream's answer broke off before its end (${context.upstreams[endpoint.api]}).`, 'upstream_broke_off'), headersNow());
      return;
    }
    if (error instanceof TypeError && placed) {
      // fetch failed: the upstream could not be reached.
      context.onProblem(`upstream ${endpoint.api} unreachable: ${error.message}`);
      answerJson(response, 502, providerErrorBody(endpoint.api, 502, `sliding-context: the upstream could not be reached (${context.upstreams[endpoint.api]}).`, 'upstream_unreachable'), headersNow());
      return;
    }
    if (!(error instanceof SlidingContextError)) context.onProblem(`${endpoint.format} request failed: ${error instanceof Error ? error.message : String(error)}`);
    answerError(response, endpoint.api, error, headersNow());
  }
}
