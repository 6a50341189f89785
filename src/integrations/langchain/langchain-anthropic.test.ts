import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { MemorySaver } from '@langchain/langgraph';
import { ChatAnthropic } from '@langchain/anthropic';
import { createAgent } from 'langchain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTokenCounter } from '../../tokens/load-token-counter.js';
import { agentTools, requestProblems, runBuiltCli, scriptedReply, userText } from './_test-agent-script.js';
import { startAnthropicServer } from './_test-provider-servers.js';
import { slidingContextMiddleware } from './sliding-context-middleware.js';

/** Claude's tool definitions and framing weigh more than OpenAI's: each turn here is about 1,500 tokens. */
const BUDGET_TOKENS = 3000;
/** The server's own limit, below the budget: the first request over it is refused as too long. */
const CONTEXT_LIMIT_TOKENS = 2400;
const TURNS = 8;

const counter = await loadTokenCounter();
const directory = mkdtempSync(join(tmpdir(), 'sc-langchain-anthropic-'));
const dataDir = join(directory, 'data');

/** The custom events the run's callbacks received, by name. */
class EventLog extends BaseCallbackHandler {
  name = 'event-log';
  readonly events: { name: string; data: unknown }[] = [];
  override handleCustomEvent(name: string, data: unknown): void {
    this.events.push({ name, data });
  }
}

describe('slidingContextMiddleware with createAgent and ChatAnthropic', () => {
  let server: Awaited<ReturnType<typeof startAnthropicServer>>;
  let middleware: ReturnType<typeof slidingContextMiddleware>;
  const log = new EventLog();

  beforeAll(async () => {
    server = await startAnthropicServer({ reply: scriptedReply, counter, model: 'claude-sonnet-4-5', contextLimitTokens: CONTEXT_LIMIT_TOKENS });
    middleware = slidingContextMiddleware({ dataDir, budgetTokens: BUDGET_TOKENS });
    const model = new ChatAnthropic({ model: 'claude-sonnet-4-5', apiKey: 'sk-ant-loopback', maxRetries: 0, anthropicApiUrl: server.url });
    const agent = createAgent({ model, tools: agentTools, systemPrompt: 'You are a terse assistant.', middleware: [middleware], checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: 'claude-desk' }, callbacks: [log] };
    for (let turn = 0; turn < TURNS; turn++) {
      const input = { messages: [{ role: 'user', content: userText(turn) }] };
      if (turn % 2 === 0) {
        await agent.invoke(input, config);
      } else {
        // Streamed: the model's tokens reach the caller as they come.
        let chunks = 0;
        for await (const _chunk of await agent.stream(input, { ...config, streamMode: 'messages' })) chunks += 1;
        expect(chunks).toBeGreaterThan(0);
      }
    }
  }, 240_000);

  afterAll(async () => {
    await middleware.close();
    await server.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('sends every request within budget (as counted for Claude), with whole exchanges and the latest one', () => {
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
      if (!request.refused) expect(request.tokens, `request ${index}`).toBeLessThanOrEqual(BUDGET_TOKENS);
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
    expect(retry.tokens).toBeLessThanOrEqual(CONTEXT_LIMIT_TOKENS);
    const names = log.events.map((event) => event.name);
    expect(names).toContain('sliding-context/overflow-retried');
    expect(names).toContain('sliding-context/exchange-evicted');
    expect(log.events.find((event) => event.name === 'sliding-context/overflow-retried')?.data).toMatchObject({ type: 'overflow-retried', attempt: 1, limit: CONTEXT_LIMIT_TOKENS });
  });

  it('keeps the full history, which the CLI reads from a second process while the store is open', async () => {
    const agents = await runBuiltCli(['agents', '--data-dir', dataDir, '--json']);
    expect(agents.stderr).toBe('');
    const listed = JSON.parse(agents.stdout) as { agentId: string; name: string | null; messages: number }[];
    const desk = listed.find((agent) => agent.name === 'claude-desk');
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
