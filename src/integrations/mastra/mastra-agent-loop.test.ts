import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAI } from '@ai-sdk/openai';
import { Mastra } from '@mastra/core';
import { Agent } from '@mastra/core/agent';
import { ConsoleLogger } from '@mastra/core/logger';
import { createTool } from '@mastra/core/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DIGEST_HEADING, digestSummarizer } from '../../condense/digest-summarizer.js';
import { loadTokenCounter } from '../../tokens/load-token-counter.js';
import { fileText, requestProblems, runBuiltCli, scriptedReply, userText } from '../langchain/_test-agent-script.js';
import { startOpenAiServer } from '../langchain/_test-provider-servers.js';
import type { ConversationEvent } from '../../conversation/conversation-events.js';
import { MASTRA_EVENT_CHUNK } from './mastra-events.js';
import { SlidingContextProcessor, type SlidingContextProcessorOptions } from './sliding-context-processor.js';

const TURNS = 8;
const BUDGET_TOKENS = 2000;
/** The server's own limit, below the budget: the first request over it is refused as too long. */
const CONTEXT_LIMIT_TOKENS = 1500;
const counter = await loadTokenCounter();

const tools = {
  get_weather: createTool({ id: 'get_weather', description: 'The weather in a city.', inputSchema: z.object({ city: z.string() }), execute: ({ city }) => Promise.resolve(`Sunny and 21 degrees in ${city}.`) }),
  read_file: createTool({ id: 'read_file', description: 'Reads a file.', inputSchema: z.object({ path: z.string() }), execute: ({ path }) => Promise.resolve(fileText(path)) }),
};

type MastraModel = ConstructorParameters<typeof Agent>[0]['model'];

/** A message the application keeps in its own history and sends again (Mastra's `response.messages`). */
type HistoryMessage = Parameters<Agent['generate']>[0];

/** The lines the agent's logger received (Mastra's own included, which then stay off the console). */
class LineLog extends ConsoleLogger {
  readonly lines: string[] = [];
  override info(message: string): void {
    this.lines.push(message);
  }

  override warn(message: string): void {
    this.lines.push(message);
  }

  override error(message: string): void {
    this.lines.push(message);
  }
}

/**
 * Runs `TURNS` turns of Mastra's real agent loop (every other one streamed) against a loopback
 * OpenAI server, through `@ai-sdk/openai`: per turn two weather calls at once, a file read, an
 * answer. The application sends its whole history each turn, in the thread `threadId`.
 */
async function runAgent(options: SlidingContextProcessorOptions, threadId: string, contextLimitTokens: number) {
  const server = await startOpenAiServer({ reply: scriptedReply, counter, model: 'gpt-4o', contextLimitTokens });
  const processor = new SlidingContextProcessor(options);
  const openai = createOpenAI({ apiKey: 'sk-loopback', baseURL: server.url });
  // Mastra declares the AI SDK's model type from its own copy of `@ai-sdk/provider`, which differs in its promise types from the provider's.
  const model = openai.chat('gpt-4o') as unknown as MastraModel;
  const agent = new Agent({
    id: 'weather', name: 'weather', instructions: 'You are a terse assistant.', model, tools,
    inputProcessors: [processor], errorProcessors: [processor], maxProcessorRetries: 3,
  });
  // Registered with a Mastra instance, as an application does: its logger gets the events.
  const log = new LineLog();
  new Mastra({ agents: { weather: agent }, logger: log });
  const history: unknown[] = [];
  const chunks: ConversationEvent[] = [];
  const texts: string[] = [];
  const memory = { thread: threadId, resource: 'desk-user' };
  for (let turn = 0; turn < TURNS; turn++) {
    history.push({ role: 'user', content: userText(turn) });
    if (turn % 2 === 0) {
      const result = await agent.generate(history as HistoryMessage, { memory, maxSteps: 5 });
      texts.push(result.text);
      history.push(...result.response.messages ?? []);
    } else {
      const result = await agent.stream(history as HistoryMessage, { memory, maxSteps: 5 });
      for await (const chunk of result.fullStream) {
        if (chunk.type === MASTRA_EVENT_CHUNK) chunks.push((chunk as unknown as { data: ConversationEvent }).data);
      }
      texts.push(await result.text);
      history.push(...(await result.response).messages ?? []);
    }
  }
  return { server, processor, chunks, texts, log };
}

describe('SlidingContextProcessor in a Mastra agent loop (OpenAI)', () => {
  const directory = mkdtempSync(join(tmpdir(), 'sc-mastra-'));
  const dataDir = join(directory, 'data');
  let run: Awaited<ReturnType<typeof runAgent>>;

  beforeAll(async () => {
    run = await runAgent({ dataDir, budgetTokens: BUDGET_TOKENS }, 'weather-desk', CONTEXT_LIMIT_TOKENS);
  }, 240_000);

  afterAll(async () => {
    await run.processor.close();
    await run.server.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('answers every turn, streamed or not', () => {
    // `generate` joins the text of every step; a stream's `text` is its last step's.
    expect(run.texts.map((text, turn) => text.endsWith(`Turn ${turn} done: sunny in both, and the notes are read.`))).toEqual(run.texts.map(() => true));
  });

  it('sends every request within budget (counted exactly for OpenAI), with whole exchanges, from a user message, and the latest one', () => {
    const { seen } = run.server;
    const sent = seen.filter((request) => !request.refused);
    // Each turn: two weather calls at once, a file read, an answer.
    expect(sent).toHaveLength(TURNS * 3);
    expect(sent.some((request) => request.stream)).toBe(true);
    expect(sent.some((request) => !request.stream)).toBe(true);
    seen.forEach((request, index) => {
      const latest = request.messages.flatMap((message) => (message.role === 'user' && typeof message.content === 'string' && message.content.startsWith('Turn') ? [message.content] : [])).at(-1);
      expect(latest, `request ${index}`).toBeDefined();
      expect(requestProblems(request, latest), `request ${index}`).toEqual([]);
      if (!request.refused) expect(request.tokens, `request ${index}`).toBeLessThanOrEqual(BUDGET_TOKENS);
    });
    const last = sent.at(-1)!;
    expect(requestProblems(last, userText(TURNS - 1))).toEqual([]);
    expect(requestProblems(last, userText(0))).toEqual([`lacks "${userText(0)}"`]);
  });

  it('answers the provider\'s context-overflow error with a smaller retry, and logs and streams the events', () => {
    const { seen } = run.server;
    const refused = seen.findIndex((request) => request.refused);
    expect(refused).toBeGreaterThanOrEqual(0);
    const retry = seen[refused + 1]!;
    expect(retry.refused).toBe(false);
    expect(retry.tokens).toBeLessThan(seen[refused]!.tokens);
    expect(retry.tokens).toBeLessThanOrEqual(CONTEXT_LIMIT_TOKENS);
    expect(run.chunks.map((event) => event.type)).toEqual(expect.arrayContaining(['exchange-evicted', 'overflow-retried']));
    expect(run.chunks.find((event) => event.type === 'overflow-retried')).toMatchObject({ attempt: 1, limit: CONTEXT_LIMIT_TOKENS });
    // The agent's logger has them too, from generated turns as from streamed ones.
    expect(run.log.lines).toEqual(expect.arrayContaining(['sliding-context: exchange-evicted', 'sliding-context: overflow-retried']));
    expect(run.log.lines.filter((line) => line.startsWith('sliding-context: ')).length).toBeGreaterThan(run.chunks.length);
  });

  it('keeps the full history in one conversation per thread, which the CLI reads from a second process', async () => {
    const agents = await runBuiltCli(['agents', '--data-dir', dataDir, '--json']);
    expect(agents.stderr).toBe('');
    const listed = JSON.parse(agents.stdout) as { agentId: string; name: string | null; messages: number }[];
    // The thread is one conversation: sending the history again in Mastra's shape forks nothing.
    expect(listed).toHaveLength(1);
    const desk = listed.find((agent) => agent.name === 'weather-desk');
    // The system prompt; per turn: the question, two parallel calls and their results, the read and its result, the answer.
    expect(desk?.messages).toBe(1 + TURNS * 6);
    const history = await runBuiltCli(['history', desk!.agentId, '--data-dir', dataDir, '--json']);
    expect(history.stderr).toBe('');
    const view = JSON.parse(history.stdout) as { exchanges: { title: string; inWindow: boolean; outOfWindow: string | null }[] };
    expect(view.exchanges.map((exchange) => exchange.title)).toEqual(Array.from({ length: TURNS }, (_, turn) => userText(turn)));
    expect(view.exchanges[0]).toMatchObject({ inWindow: false, outOfWindow: 'evicted' });
    expect(view.exchanges.at(-1)).toMatchObject({ inWindow: true });
  });
});

describe('SlidingContextProcessor with condense', () => {
  const directory = mkdtempSync(join(tmpdir(), 'sc-mastra-condense-'));
  let run: Awaited<ReturnType<typeof runAgent>>;

  beforeAll(async () => {
    run = await runAgent({ dataDir: join(directory, 'data'), budgetTokens: BUDGET_TOKENS, condense: { summarizer: digestSummarizer(), thresholdPercent: 60 } }, 'condensed-desk', 100_000);
  }, 240_000);

  afterAll(async () => {
    await run.processor.close();
    await run.server.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('pins a digest of what left the window after the system prompt, the window still from a user message', () => {
    const last = run.server.seen.at(-1)!;
    expect(run.server.seen.every((request) => request.tokens <= BUDGET_TOKENS)).toBe(true);
    expect(last.system).toBe('You are a terse assistant.');
    const [summary, first] = last.messages;
    expect(summary?.role).toBe('system');
    expect(JSON.stringify(summary)).toContain(DIGEST_HEADING);
    expect(first?.role).toBe('user');
    expect(requestProblems({ ...last, messages: last.messages.slice(1) }, userText(TURNS - 1))).toEqual([]);
    expect(run.chunks.map((event) => event.type)).toContain('summary-created');
  });
});
