import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

/** A Chat Completions message as a client sends it. */
export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

/** The text every answer of {@link startInstantUpstream} carries. */
export const INSTANT_ANSWER = 'Done: the tests pass.';

/**
 * An OpenAI-compatible upstream that answers every request at once with the same short text,
 * reading the body without parsing it: what a proxy in front of it spends is its own.
 */
export async function startInstantUpstream(): Promise<{ url: string; requests: () => number; close(): Promise<void> }> {
  let requests = 0;
  const answer = JSON.stringify({
    id: 'chatcmpl-instant', object: 'chat.completion', created: 1, model: 'gpt-4o',
    choices: [{ index: 0, message: { role: 'assistant', content: INSTANT_ANSWER }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1000, completion_tokens: 6, total_tokens: 1006 },
  });
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      requests++;
      response.writeHead(200, { 'content-type': 'application/json' }).end(answer);
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

/**
 * A conversation of about `tokens` tokens (four characters a token), different for each `seed`:
 * a system prompt, then user and assistant turns of about 450 tokens each, ending with the user's.
 */
export function syntheticHistory(seed: number, tokens: number): ChatMessage[] {
  let state = (seed * 2_654_435_761 + 1) >>> 0;
  const next = () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state;
  };
  const text = (characters: number) => {
    const words: string[] = [];
    let length = 0;
    while (length < characters) {
      const word = WORDS[next() % WORDS.length] ?? 'the';
      words.push(word);
      length += word.length + 1;
    }
    return words.join(' ');
  };
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

async function send(proxyUrl: string, messages: readonly ChatMessage[]): Promise<{ sample: LoadSample; answer: string }> {
  const started = performance.now();
  const response = await fetch(`${proxyUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'authorization': 'Bearer load-test' },
    body: JSON.stringify({ model: 'gpt-4o', messages }),
  });
  const body = await response.json() as { choices?: { message?: { content?: string } }[] };
  const latencyMs = performance.now() - started;
  if (!response.ok) throw new RangeError(`the proxy answered ${String(response.status)}: ${JSON.stringify(body)}`);
  return {
    sample: {
      agentId: response.headers.get('x-sliding-context-agent') ?? '',
      overheadMs: Number(response.headers.get('x-sliding-context-overhead-ms')),
      latencyMs,
    },
    answer: body.choices?.[0]?.message?.content ?? '',
  };
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
}

/** Sends each conversation's history once (it stores the history), ten at a time; the answers are added to them. */
export async function seedConversations(proxyUrl: string, histories: readonly ChatMessage[][]): Promise<ChatMessage[][]> {
  const conversations = histories.map((history) => [...history]);
  const seed = async (conversation: ChatMessage[]) => {
    const { answer } = await send(proxyUrl, conversation);
    conversation.push({ role: 'assistant', content: answer });
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
export async function runTurns(proxyUrl: string, conversations: readonly ChatMessage[][], requests: number, options: TurnOptions = {}): Promise<{ samples: LoadSample[]; wallMs: number }> {
  const pauseMs = options.pauseMs ?? 0;
  const samples: LoadSample[] = [];
  const started = performance.now();
  await Promise.all(conversations.map(async (conversation, index) => {
    let state = (index * 2_654_435_761 + 7) >>> 0;
    const jitter = () => {
      state = (state * 1_664_525 + 1_013_904_223) >>> 0;
      return state / 2 ** 32;
    };
    for (let turn = 0; turn < requests; turn++) {
      if (pauseMs > 0) await pause(pauseMs * (turn === 0 ? jitter() : 0.5 + jitter()));
      conversation.push({ role: 'user', content: `agent ${String(index)}, follow-up ${String(turn)}: run the tests again.` });
      const { sample, answer } = await send(proxyUrl, conversation);
      conversation.push({ role: 'assistant', content: answer });
      samples.push(sample);
    }
  }));
  return { samples, wallMs: performance.now() - started };
}

/** {@link seedConversations}, then {@link runTurns}. */
export async function runProxyLoad(proxyUrl: string, histories: readonly ChatMessage[][], requests: number, options: TurnOptions = {}): Promise<{ samples: LoadSample[]; wallMs: number }> {
  return runTurns(proxyUrl, await seedConversations(proxyUrl, histories), requests, options);
}
