import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChatAnthropic } from '@langchain/anthropic';
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { MemorySaver } from '@langchain/langgraph';
import { ChatOpenAI } from '@langchain/openai';
import { createAgent } from 'langchain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTokenCounter } from '../../tokens/load-token-counter.js';
import { agentTools, requestProblems, runBuiltCli, scriptedReply, userText } from './_test-agent-script.js';
import { startAnthropicServer, startOpenAiServer } from './_test-provider-servers.js';
import { slidingContextMiddleware } from './sliding-context-middleware.js';

const TURNS = 8;
const counter = await loadTokenCounter();

/** The custom events the run's callbacks received, by name. */
class EventLog extends BaseCallbackHandler {
  name = 'event-log';
  readonly events: { name: string; data: unknown }[] = [];
  override handleCustomEvent(name: string, data: unknown): void {
    this.events.push({ name, data });
  }
}

type ProviderServer = Awaited<ReturnType<typeof startOpenAiServer>>;

/**
 * Each provider's loopback server and chat model. `contextLimitTokens` is the server's own limit,
 * below the budget: the first request over it is refused as too long. Claude's tool definitions
 * and framing weigh more than OpenAI's, so its turns (about 1,500 tokens) get a larger budget.
 */
const providers = [
  {
    name: 'ChatOpenAI',
    threadId: 'weather-desk',
    budgetTokens: 2000,
    contextLimitTokens: 1500,
    // The overflow comes in a streamed turn here, so the custom stream mode carries it too.
    overflowStreamed: true,
    start: (limit: number): Promise<ProviderServer> => startOpenAiServer({ reply: scriptedReply, counter, model: 'gpt-4o', contextLimitTokens: limit }),
    model: (url: string): BaseChatModel => new ChatOpenAI({ model: 'gpt-4o', apiKey: 'sk-loopback', maxRetries: 0, configuration: { baseURL: url } }),
  },
  {
    name: 'ChatAnthropic',
    threadId: 'claude-desk',
    budgetTokens: 3000,
    contextLimitTokens: 2400,
    overflowStreamed: false,
    start: (limit: number): Promise<ProviderServer> => startAnthropicServer({ reply: scriptedReply, counter, model: 'claude-sonnet-4-5', contextLimitTokens: limit }),
    model: (url: string): BaseChatModel => new ChatAnthropic({ model: 'claude-sonnet-4-5', apiKey: 'sk-ant-loopback', maxRetries: 0, anthropicApiUrl: url }),
  },
];

describe.each(providers)('slidingContextMiddleware with createAgent and $name', (provider) => {
  const directory = mkdtempSync(join(tmpdir(), 'sc-langchain-'));
  const dataDir = join(directory, 'data');
  let server: ProviderServer;
  let middleware: ReturnType<typeof slidingContextMiddleware>;
  const log = new EventLog();
  const customChunks: unknown[] = [];

  beforeAll(async () => {
    server = await provider.start(provider.contextLimitTokens);
    middleware = slidingContextMiddleware({ dataDir, budgetTokens: provider.budgetTokens });
    const agent = createAgent({ model: provider.model(server.url), tools: agentTools, systemPrompt: 'You are a terse assistant.', middleware: [middleware], checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: provider.threadId }, callbacks: [log] };
    for (let turn = 0; turn < TURNS; turn++) {
      const input = { messages: [{ role: 'user', content: userText(turn) }] };
      if (turn % 2 === 0) {
        await agent.invoke(input, config);
      } else {
        // Streamed: the model's tokens reach the caller as they come, the window's events in the custom mode.
        let tokens = 0;
        for await (const [mode, chunk] of await agent.stream(input, { ...config, streamMode: ['messages', 'custom'] })) {
          if (mode === 'messages') tokens += 1;
          else customChunks.push(chunk);
        }
        expect(tokens).toBeGreaterThan(0);
      }
    }
  }, 240_000);

  afterAll(async () => {
    await middleware.close();
    await server.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('sends every request within budget (counted exactly for OpenAI), with whole exchanges and the latest one', () => {
    const sent = server.seen.filter((request) => !request.refused);
    // Each turn: two weather calls at once, a file read, an answer.
    expect(sent).toHaveLength(TURNS * 3);
    expect(sent.some((request) => request.stream)).toBe(true);
    expect(sent.some((request) => !request.stream)).toBe(true);
    const latest: string[] = [];
    for (const request of server.seen) {
      const turn = request.messages.flatMap((message) => (message.role === 'user' && typeof message.content === 'string' && message.content.startsWith('Turn') ? [message.content] : [])).at(-1);
      latest.push(turn ?? '');
    }
    server.seen.forEach((request, index) => {
      expect(requestProblems(request, latest[index]), `request ${index}`).toEqual([]);
      if (!request.refused) expect(request.tokens, `request ${index}`).toBeLessThanOrEqual(provider.budgetTokens);
    });
    // The window moved: the first turn's question left it, the last turn's is there.
    const last = sent.at(-1)!;
    expect(requestProblems(last, userText(TURNS - 1))).toEqual([]);
    expect(requestProblems(last, userText(0))).toEqual([`lacks "${userText(0)}"`]);
  });

  it('answers the provider\'s context-overflow error with a smaller retry, and reports it to the callbacks', () => {
    const refused = server.seen.findIndex((request) => request.refused);
    expect(refused).toBeGreaterThanOrEqual(0);
    const retry = server.seen[refused + 1]!;
    expect(retry.refused).toBe(false);
    expect(retry.tokens).toBeLessThan(server.seen[refused]!.tokens);
    expect(retry.tokens).toBeLessThanOrEqual(provider.contextLimitTokens);
    const names = log.events.map((event) => event.name);
    expect(names).toContain('sliding-context/overflow-retried');
    expect(names).toContain('sliding-context/exchange-evicted');
    expect(log.events.find((event) => event.name === 'sliding-context/overflow-retried')?.data).toMatchObject({ type: 'overflow-retried', attempt: 1, limit: provider.contextLimitTokens });
    if (provider.overflowStreamed) {
      expect(customChunks).toContainEqual({ 'sliding-context/overflow-retried': expect.objectContaining({ type: 'overflow-retried', attempt: 1 }) });
    }
  });

  it('keeps the full history, which the CLI reads from a second process while the store is open', async () => {
    const agents = await runBuiltCli(['agents', '--data-dir', dataDir, '--json']);
    expect(agents.stderr).toBe('');
    const listed = JSON.parse(agents.stdout) as { agentId: string; name: string | null; messages: number }[];
    const desk = listed.find((agent) => agent.name === provider.threadId);
    // Per turn: the question, two parallel calls and their results, the read and its result, the answer.
    expect(desk?.messages).toBe(TURNS * 7);
    const history = await runBuiltCli(['history', desk!.agentId, '--data-dir', dataDir, '--json']);
    expect(history.stderr).toBe('');
    const view = JSON.parse(history.stdout) as { exchanges: { title: string; inWindow: boolean; outOfWindow: string | null }[] };
    expect(view.exchanges.map((exchange) => exchange.title)).toEqual(Array.from({ length: TURNS }, (_, turn) => userText(turn)));
    expect(view.exchanges[0]).toMatchObject({ inWindow: false, outOfWindow: 'evicted' });
    expect(view.exchanges.at(-1)).toMatchObject({ inWindow: true });
  });
});
