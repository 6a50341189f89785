/**
 * Loopback OpenAI Chat Completions servers for the integration benchmark, answering at once: one
 * plays a scripted session's model (each step's tool calls, then the answer), judges every request
 * it receives and keeps the time it spent on them; the other answers any request with a fixed text
 * (a summarizer).
 */
import { startLoopbackServer, type LoopbackAnswer } from '../../src/testing/loopback-server.js';
import type { TokenCounter } from '../../src/tokens/token-counter.js';
import { readOpenAiRequest } from './read-openai-request.js';
import { judgeWindow } from '../../src/testing/judge-window.js';
import type { ScriptedSession } from './scripted-session.js';

/** What the requests a server received were found to be. */
export interface RequestTally {
  requests: number;
  tokens: number;
  maxTokens: number;
  withOrphans: number;
  overBudget: number;
  nonUserStart: number;
  /** Requests without the turn's user request (the latest exchange cut away). */
  withoutRequest: number;
}

export const emptyTally = (): RequestTally => ({ requests: 0, tokens: 0, maxTokens: 0, withOrphans: 0, overBudget: 0, nonUserStart: 0, withoutRequest: 0 });

interface Reply {
  readonly text: string | undefined;
  readonly calls: readonly { readonly toolCallId: string; readonly toolName: string; readonly input: unknown }[];
}

let answers = 0;

/** A chat completion, as one JSON body or as the event stream of a streamed request. */
function completion(reply: Reply, model: string, promptTokens: number, stream: boolean): LoopbackAnswer {
  const id = `chatcmpl-${(++answers).toString(36)}`;
  const toolCalls = reply.calls.map((call) => ({ id: call.toolCallId, type: 'function', function: { name: call.toolName, arguments: JSON.stringify(call.input) } }));
  const usage = { prompt_tokens: promptTokens, completion_tokens: 20, total_tokens: promptTokens + 20 };
  const finishReason = toolCalls.length > 0 ? 'tool_calls' : 'stop';
  if (!stream) {
    const message = { role: 'assistant', content: reply.text ?? null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) };
    return { status: 200, body: { id, object: 'chat.completion', created: 1763683200, model, choices: [{ index: 0, message, finish_reason: finishReason }], usage } };
  }
  const chunk = (delta: unknown, finish: string | null = null, withUsage: unknown = null) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1763683200, model, choices: delta === null ? [] : [{ index: 0, delta, finish_reason: finish }], usage: withUsage })}\n\n`;
  const events = [chunk({ role: 'assistant', content: reply.text === undefined ? null : '' })];
  if (reply.text !== undefined) events.push(chunk({ content: reply.text }));
  toolCalls.forEach((call, index) => {
    events.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: call.function.arguments } }] }));
  });
  events.push(chunk({}, finishReason), chunk(null, null, usage), 'data: [DONE]\n\n');
  return { status: 200, sse: events.join('') };
}

/**
 * Plays `session`'s model: after `beginTurn(index)`, the turn's first request is answered with its
 * first step's tool calls, the next with the next step's, and the one after the last step with
 * the answer. Each request is judged, counted exactly for `model`, into `tally`, and checked for
 * the turn's user request.
 */
export async function startSessionServer(options: { session: ScriptedSession; counter: TokenCounter; model: string; budgetTokens: number }) {
  const { session, counter, model, budgetTokens } = options;
  let turn = 0;
  let step = 0;
  let serverMs = 0;
  let tally = emptyTally();
  const server = await startLoopbackServer((request) => {
    const start = performance.now();
    const body = request.body as { stream?: boolean };
    const { system, tools, messages } = readOpenAiRequest(body);
    const verdict = judgeWindow(messages, { counter, provider: 'openai', model, system: system ?? '', tools, budgetTokens });
    const scripted = session.turns[turn];
    tally.requests++;
    tally.tokens += verdict.requestTokens;
    tally.maxTokens = Math.max(tally.maxTokens, verdict.requestTokens);
    if (verdict.orphans > 0) tally.withOrphans++;
    if (verdict.overBudget) tally.overBudget++;
    if (verdict.startsWithNonUser) tally.nonUserStart++;
    if (!messages.some((message) => message.role === 'user' && message.content === scripted?.user)) tally.withoutRequest++;
    const next = scripted?.steps[step];
    step++;
    const reply: Reply = next ?? { text: scripted?.answer ?? 'Done.', calls: [] };
    const answer = completion(reply, model, verdict.requestTokens, body.stream === true);
    serverMs += performance.now() - start;
    return answer;
  });
  return {
    url: `${server.url}/v1`,
    beginTurn(index: number) {
      turn = index;
      step = 0;
    },
    /** The tally so far, and a fresh one from now on. */
    takeTally(): RequestTally {
      const taken = tally;
      tally = emptyTally();
      return taken;
    },
    /** Milliseconds the server spent answering since last asked. */
    takeServerMs(): number {
      const taken = serverMs;
      serverMs = 0;
      return taken;
    },
    close: server.close,
  };
}

export type SessionServer = Awaited<ReturnType<typeof startSessionServer>>;

/** Answers every chat completion with `text`: a summarizer that costs nothing. */
export async function startFixedTextServer(text: string, model: string) {
  const server = await startLoopbackServer((request) => completion({ text, calls: [] }, model, 0, (request.body as { stream?: boolean }).stream === true));
  return { url: `${server.url}/v1`, close: server.close };
}
