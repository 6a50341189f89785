import { MemorySaver } from '@langchain/langgraph';
import { ChatOpenAI } from '@langchain/openai';
import { createAgent } from 'langchain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIGEST_HEADING, digestSummarizer } from '../../condense/digest-summarizer.js';
import { HistoryStore } from '../../store/history-store.js';
import { loadTokenCounter } from '../../tokens/load-token-counter.js';
import { resolveModel } from '../../tokens/model-catalog.js';
import { modelBudget } from '../../window/model-budget.js';
import { agentTools, requestProblems, scriptedReply, userText } from './_test-agent-script.js';
import { startOpenAiServer } from './_test-provider-servers.js';
import { slidingContextMiddleware, type SlidingContextMiddlewareOptions } from './sliding-context-middleware.js';

const counter = await loadTokenCounter();
const store = await HistoryStore.open({ memory: true });
let server: Awaited<ReturnType<typeof startOpenAiServer>>;

beforeAll(async () => {
  server = await startOpenAiServer({ reply: scriptedReply, counter, model: 'gpt-4o', contextLimitTokens: 1_000_000 });
});
afterAll(async () => {
  await server.close();
  await store.close();
});

function agentWith(options: SlidingContextMiddlewareOptions, checkpointer?: MemorySaver, systemPrompt?: string) {
  const model = new ChatOpenAI({ model: 'gpt-4o', apiKey: 'sk-loopback', maxRetries: 0, configuration: { baseURL: server.url } });
  return createAgent({ model, tools: agentTools, middleware: [slidingContextMiddleware({ store, ...options })], ...(checkpointer ? { checkpointer } : {}), ...(systemPrompt === undefined ? {} : { systemPrompt }) });
}

const ask = (turn: number) => ({ messages: [{ role: 'user', content: userText(turn) }] });
const agentNamed = async (name: string) => (await store.listAgents()).filter((agent) => agent.name === name);

describe('slidingContextMiddleware: which conversation', () => {
  it('continues a thread after a restart without storing again what the checkpointed state already holds', async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: 'restarted-thread' } };
    await agentWith({}, checkpointer).invoke(ask(0), config);
    // A new middleware, as after a restart, on the same store and checkpointer.
    await agentWith({}, checkpointer).invoke(ask(1), config);
    const [agent, ...others] = await agentNamed('restarted-thread');
    expect(others).toEqual([]);
    const history = await store.history(agent!.agentId);
    expect(history).toHaveLength(2 * 7);
    // Ids kept as LangChain sent them: each one once.
    const ids = history.map((stored) => stored.message.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => typeof id === 'string' && id !== '')).toBe(true);
  });

  it('without a checkpointer, sends the thread\'s stored turns with the new question', async () => {
    const config = { configurable: { thread_id: 'stateless-thread' } };
    const agent = agentWith({});
    await agent.invoke(ask(0), config);
    const before = server.seen.length;
    await agent.invoke(ask(1), config);
    const first = server.seen[before]!;
    const texts = first.messages.filter((message) => message.role === 'user').map((message) => message.content);
    expect(texts).toEqual([userText(0), userText(1)]);
  });

  it('uses conversationId when the call names no thread, and one new agent per middleware when neither is given', async () => {
    const named = agentWith({ conversationId: 'nightly-report' });
    await named.invoke(ask(0));
    await named.invoke(ask(1));
    const [report] = await agentNamed('nightly-report');
    expect(report?.messages).toBe(2 * 7);

    const agentsBefore = new Set((await store.listAgents()).map((agent) => agent.agentId));
    const unnamed = agentWith({});
    await unnamed.invoke(ask(0));
    await unnamed.invoke(ask(1));
    await agentWith({}).invoke(ask(2));
    const added = (await store.listAgents()).filter((agent) => !agentsBefore.has(agent.agentId));
    expect(added.map((agent) => [agent.name, agent.messages]).sort()).toEqual([[null, 2 * 7], [null, 7]].sort());
  });
});

describe('slidingContextMiddleware: budget', () => {
  it('derives the budget from the chat model when none is given: its context window less its output and a buffer', async () => {
    await agentWith({ conversationId: 'derived-budget' }).invoke(ask(0));
    const [agent] = await agentNamed('derived-budget');
    const meta = await store.agentMeta(agent!.agentId);
    expect(meta).toMatchObject({ provider: 'openai', model: 'gpt-4o', budgetTokens: modelBudget(resolveModel('openai', 'gpt-4o')).allowedTokens });
    expect(meta.budgetTokens).toBeLessThan(128_000);
  });
});

describe('slidingContextMiddleware: condense', () => {
  it('pins the digest of what left the window after the system prompt, within budget', async () => {
    const agent = agentWith({ budgetTokens: 2000, condense: { summarizer: digestSummarizer(), thresholdPercent: 60 } }, new MemorySaver(), 'You are a terse assistant.');
    const config = { configurable: { thread_id: 'condensed-thread' } };
    const before = server.seen.length;
    for (let turn = 0; turn < 5; turn++) await agent.invoke(ask(turn), config);
    const last = server.seen.at(-1)!;
    expect(server.seen.slice(before).every((request) => request.tokens <= 2000)).toBe(true);
    expect(requestProblems(last, userText(4))).toEqual([]);
    expect(last.system).toBe('You are a terse assistant.');
    const [summary] = last.messages;
    expect(summary?.role).toBe('system');
    expect(summary?.content).toContain(DIGEST_HEADING);
    expect(summary?.content).toContain('Turn 0');
  });
});
