import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

/** A Chat Completions message as a client sends it. */
export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

/** The assistant's call of a tool, as a Chat Completions client sends it back. */
export interface ToolCallMessage {
  readonly role: 'assistant';
  readonly content: null;
  readonly tool_calls: readonly { readonly id: string; readonly type: 'function'; readonly function: { readonly name: string; readonly arguments: string } }[];
}

/** A tool's result, as a Chat Completions client sends it. */
export interface ToolResultMessage {
  readonly role: 'tool';
  readonly tool_call_id: string;
  readonly content: string;
}

/** What a load run's client sends: its history, and the tool calls and results of its turns. */
export type ClientMessage = ChatMessage | ToolCallMessage | ToolResultMessage;

/** The text every answer of {@link startInstantUpstream} carries. */
export const INSTANT_ANSWER = 'Done: the tests pass.';

/** The tool {@link startInstantUpstream} calls when the last message is the user's and names it. */
export const TEST_TOOL = 'run_tests';

function chatCompletion(message: Record<string, unknown>, finishReason: string): string {
  return JSON.stringify({
    id: 'chatcmpl-instant', object: 'chat.completion', created: 1, model: 'gpt-4o',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finishReason }],
    usage: { prompt_tokens: 1000, completion_tokens: 6, total_tokens: 1006 },
  });
}

/**
 * Whether the body's last message is the user's and names {@link TEST_TOOL}, read without parsing
 * the body: a message's `role` comes first in it, and a quote inside a string is escaped.
 */
function asksForTheTool(body: Buffer): boolean {
  const last = body.lastIndexOf('"role":"');
  return last !== -1 && body.indexOf('"role":"user"', last) === last && body.indexOf(TEST_TOOL, last) !== -1;
}

/**
 * An OpenAI-compatible upstream that answers every request at once with the same short text (or,
 * when the last message is the user's and names {@link TEST_TOOL}, with a call of it), reading the
 * body without parsing it: what a proxy in front of it spends is its own.
 */
export async function startInstantUpstream(): Promise<{ url: string; requests: () => number; close(): Promise<void> }> {
  let requests = 0;
  const answer = chatCompletion({ content: INSTANT_ANSWER }, 'stop');
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests++;
      const call = { id: `call_${String(requests)}`, type: 'function', function: { name: TEST_TOOL, arguments: '{}' } };
      const reply = asksForTheTool(Buffer.concat(chunks)) ? chatCompletion({ content: null, tool_calls: [call] }, 'tool_calls') : answer;
      response.writeHead(200, { 'content-type': 'application/json' }).end(reply);
    });
  });
  // Longer than any pause of a load run: a connection the client reuses is never closed under it.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    requests: () => requests,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => {
        resolve();
      });
    }),
  };
}

const WORDS = ['the', 'handler', 'reads', 'invoice', 'rows', 'from', 'billing', 'and', 'returns', 'a', 'typed', 'model', 'test', 'fails', 'when', 'webhook', 'retries', 'twice', 'fix', 'query', 'limit', 'member', 'project', 'label', 'export', 'async', 'await', 'database', 'schema', 'column'];

/** Text of about `characters` characters, of the words above, chosen by the generator `next`. */
function wordsText(next: () => number, characters: number, separator = ' '): string {
  const words: string[] = [];
  let length = 0;
  while (length < characters) {
    const word = WORDS[next() % WORDS.length] ?? 'the';
    words.push(word);
    length += word.length + separator.length;
  }
  return words.join(separator);
}

/** A generator of the same numbers for the same seed. */
function numbersFrom(seed: number): () => number {
  let state = (seed * 2_654_435_761 + 1) >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state;
  };
}

/**
 * A conversation of about `tokens` tokens (four characters a token), different for each `seed`:
 * a system prompt, then user and assistant turns of about 450 tokens each, ending with the user's.
 */
export function syntheticHistory(seed: number, tokens: number): ChatMessage[] {
  const next = numbersFrom(seed);
  const text = (characters: number) => wordsText(next, characters);
  const messages: ChatMessage[] = [{ role: 'system', content: 'You are a coding agent. Keep answers short.' }];
  const turns = Math.max(1, Math.round(tokens / 900));
  for (let turn = 0; turn < turns; turn++) {
    messages.push({ role: 'user', content: `agent ${String(seed)}, turn ${String(turn)}: ${text(1800)}` });
    if (turn < turns - 1) messages.push({ role: 'assistant', content: text(1800) });
  }
  return messages;
}

/** One request of a load run, as the client saw it. */
export interface LoadSample {
  readonly agentId: string;
  /** The proxy's own time (its `x-sliding-context-overhead-ms` header), ms. */
  readonly overheadMs: number;
  /** From sending the request to the end of the answer, at the client, ms. */
  readonly latencyMs: number;
}

/** A test run's output of about `bytes` bytes, different for each `seed`: what a tool result carries. */
export function testOutput(seed: number, bytes: number): string {
  const next = numbersFrom(seed);
  const lines: string[] = [];
  let length = 0;
  while (length < bytes) {
    const line = `${next() % 5 === 0 ? 'FAIL' : 'PASS'} src/${wordsText(next, 24, '-')}.test.ts (${String(next() % 40)} tests) ${String(next() % 900)} ms`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join('\n');
}

/** The proxy's answer: its message, as the client adds it to its history. */
type Answer = ChatMessage | ToolCallMessage;

async function send(proxyUrl: string, messages: readonly ClientMessage[]): Promise<{ sample: LoadSample; answer: Answer }> {
  const started = performance.now();
  const response = await fetch(`${proxyUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'authorization': 'Bearer load-test' },
    body: JSON.stringify({ model: 'gpt-4o', messages }),
  });
  const body = await response.json() as { choices?: { message?: { content?: string | null; tool_calls?: ToolCallMessage['tool_calls'] } }[] };
  const latencyMs = performance.now() - started;
  if (!response.ok) throw new RangeError(`the proxy answered ${String(response.status)}: ${JSON.stringify(body)}`);
  return {
    sample: {
      agentId: response.headers.get('x-sliding-context-agent') ?? '',
      overheadMs: Number(response.headers.get('x-sliding-context-overhead-ms')),
      latencyMs,
    },
    answer: answerOf(body.choices?.[0]?.message),
  };
}

/** The answer's message as a client sends it back: its text, or its tool calls. */
function answerOf(message: { content?: string | null; tool_calls?: ToolCallMessage['tool_calls'] } | undefined): Answer {
  if (message?.tool_calls) return { role: 'assistant', content: null, tool_calls: message.tool_calls };
  return { role: 'assistant', content: message?.content ?? '' };
}

/** Options of {@link runTurns}. */
export interface TurnOptions {
  /**
   * Each agent's pause before each of its turns, ms, on average (each pause between half and one
   * and a half times it, the first one from 0): the time a model takes to answer and the agent to
   * run its tools. Default 0: every agent sends its next turn as soon as it has the answer, which
   * keeps the proxy saturated.
   */
  readonly pauseMs?: number | undefined;
  /**
   * With it, each turn asks for the tests to be run: the upstream calls {@link TEST_TOOL}, and the
   * agent sends the tool's output of about this many bytes in a second request (after a pause of
   * its own, the tool's run). Both requests are timed.
   */
  readonly toolResultBytes?: number | undefined;
}

/** Sends each conversation's history once (it stores the history), ten at a time; the answers are added to them. */
export async function seedConversations(proxyUrl: string, histories: readonly ChatMessage[][]): Promise<ClientMessage[][]> {
  const conversations: ClientMessage[][] = histories.map((history) => [...history]);
  const seed = async (conversation: ClientMessage[]) => {
    const { answer } = await send(proxyUrl, conversation);
    conversation.push(answer);
  };
  // Ten at a time: storing a long history is the slow part, and runs alone in the proxy anyway.
  for (let start = 0; start < conversations.length; start += 10) await Promise.all(conversations.slice(start, start + 10).map(seed));
  return conversations;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `requests` more turns of every conversation, side by side, each turn the whole history again
 * with the last answer and a new user message, as a chat client does. Returns the timed turns.
 */
export async function runTurns(proxyUrl: string, conversations: readonly ClientMessage[][], requests: number, options: TurnOptions = {}): Promise<{ samples: LoadSample[]; wallMs: number }> {
  const pauseMs = options.pauseMs ?? 0;
  const { toolResultBytes } = options;
  const samples: LoadSample[] = [];
  const started = performance.now();
  await Promise.all(conversations.map(async (conversation, index) => {
    let state = (index * 2_654_435_761 + 7) >>> 0;
    const jitter = () => {
      state = (state * 1_664_525 + 1_013_904_223) >>> 0;
      return state / 2 ** 32;
    };
    const turnOf = async (message: ClientMessage, first: boolean): Promise<Answer> => {
      if (pauseMs > 0) await pause(pauseMs * (first ? jitter() : 0.5 + jitter()));
      conversation.push(message);
      const { sample, answer } = await send(proxyUrl, conversation);
      conversation.push(answer);
      samples.push(sample);
      return answer;
    };
    for (let turn = 0; turn < requests; turn++) {
      const asked = `agent ${String(index)}, follow-up ${String(turn)}: run the tests again${toolResultBytes === undefined ? '' : ` with ${TEST_TOOL}`}.`;
      const answer = await turnOf({ role: 'user', content: asked }, turn === 0);
      if (toolResultBytes === undefined) continue;
      const call = 'tool_calls' in answer ? answer.tool_calls[0] : undefined;
      if (call === undefined) throw new RangeError(`agent ${String(index)}: the upstream did not call ${TEST_TOOL}`);
      await turnOf({ role: 'tool', tool_call_id: call.id, content: testOutput(index * 1_000 + turn, toolResultBytes) }, false);
    }
  }));
  return { samples, wallMs: performance.now() - started };
}

/** {@link seedConversations}, then {@link runTurns}. */
export async function runProxyLoad(proxyUrl: string, histories: readonly ChatMessage[][], requests: number, options: TurnOptions = {}): Promise<{ samples: LoadSample[]; wallMs: number }> {
  return runTurns(proxyUrl, await seedConversations(proxyUrl, histories), requests, options);
}
