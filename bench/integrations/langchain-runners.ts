/**
 * The LangChain (langchain 1.x) configurations: `createAgent` with a `ChatOpenAI` model, the app
 * handing the agent's last state (its `messages`) back with each new request. With `trimMessages`
 * in a `wrapModelCall` middleware (the model sees the trimmed list, the state keeps everything);
 * with `summarizationMiddleware`, its summarizer a loopback model answering a fixed text; and
 * with our `slidingContextMiddleware`.
 */
import { type BaseMessage, HumanMessage, trimMessages } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { type AgentMiddleware, createAgent, createMiddleware, summarizationMiddleware } from 'langchain';
import { get_encoding } from 'tiktoken';
import { slidingContextMiddleware } from '../../src/integrations/langchain/index.js';
import { HistoryStore } from '../../src/store/history-store.js';
import { HookClock, type RunnerContext, scriptedOutput, type SessionRunner } from './session-runner.js';

/** The middleware with the time of its own work kept on `clock`: the model call it wraps is left out. */
function timedMiddleware(middleware: AgentMiddleware, clock: HookClock): AgentMiddleware {
  const { beforeModel, wrapModelCall } = middleware;
  const timed: Record<string, unknown> = { ...middleware };
  if (typeof beforeModel === 'function') {
    timed.beforeModel = (...args: Parameters<typeof beforeModel>) => clock.time(() => beforeModel(...args));
  }
  if (wrapModelCall) {
    timed.wrapModelCall = (...[request, handler]: Parameters<typeof wrapModelCall>) =>
      clock.time(() => wrapModelCall(request, (inner) => clock.exclude(() => handler(inner))));
  }
  return timed as unknown as AgentMiddleware;
}

const chatModel = (url: string, model: string) => new ChatOpenAI({ model, apiKey: 'sk-loopback', maxRetries: 0, configuration: { baseURL: url } });

/** Room for the messages: the budget less the system prompt and the tool definitions, which the middlewares do not see. */
const messageRoom = (context: RunnerContext) =>
  context.budgetTokens - context.counter.countPreamble({ provider: 'openai', model: context.model, system: context.system, tools: context.tools }).tokens;

/** `createAgent` with `middleware`, driven a turn at a time. */
function agentLoop(input: { name: string; context: RunnerContext; middleware: AgentMiddleware; clock: HookClock; close?: () => Promise<void> }): SessionRunner {
  const { context } = input;
  const tools = context.tools.map((definition) => tool(
    (_input: unknown, config: { toolCall?: { id?: string } }) => scriptedOutput(context.outputs, config.toolCall?.id),
    { name: definition.name, description: definition.description ?? '', schema: definition.inputSchema },
  ));
  const agent = createAgent({
    model: chatModel(context.modelUrl, context.model), tools, systemPrompt: context.system, middleware: [timedMiddleware(input.middleware, input.clock)],
  });
  let history: BaseMessage[] = [];
  return {
    name: input.name,
    async turn(user) {
      const config = { recursionLimit: 100, configurable: { thread_id: context.conversationId } };
      const result = await agent.invoke({ messages: [...history, new HumanMessage(user)] }, config);
      history = result.messages;
    },
    takeHookMs: () => input.clock.take(),
    close: input.close ?? (() => Promise.resolve()),
  };
}

/**
 * `trimMessages` (strategy `last`, starting on a human message) on the model call's messages, with
 * a tiktoken o200k counter that counts each message once.
 */
export function langchainTrimMessages(context: RunnerContext): SessionRunner {
  const tiktoken = get_encoding('o200k_base');
  const counts = new WeakMap<BaseMessage, number>();
  const countOne = (message: BaseMessage): number => {
    let tokens = counts.get(message);
    if (tokens === undefined) {
      const calls = 'tool_calls' in message && Array.isArray(message.tool_calls) && message.tool_calls.length > 0 ? JSON.stringify(message.tool_calls) : '';
      tokens = 3 + tiktoken.encode(`${message.text}${calls}`).length;
      counts.set(message, tokens);
    }
    return tokens;
  };
  const maxTokens = messageRoom(context);
  const middleware = createMiddleware({
    name: 'TrimMessages',
    wrapModelCall: async (request, handler) => handler({
      ...request,
      messages: await trimMessages(request.messages, { maxTokens, strategy: 'last', startOn: 'human', tokenCounter: (messages) => messages.reduce((sum, message) => sum + countOne(message), 3) }),
    }),
  });
  return agentLoop({
    name: 'LangChain trimMessages (wrapModelCall)', context, middleware, clock: new HookClock(),
    close: () => {
      tiktoken.free();
      return Promise.resolve();
    },
  });
}

/**
 * `summarizationMiddleware` with its default counter, summarizing when the messages pass the room
 * left by the system prompt and tools, and keeping half of it.
 */
export function langchainSummarization(context: RunnerContext): SessionRunner {
  const clock = new HookClock();
  const summarizer = chatModel(context.summarizerUrl, context.model);
  // The summarizer's request is a model call, not the middleware's own work.
  const invoke = summarizer.invoke.bind(summarizer);
  summarizer.invoke = (...args) => clock.exclude(() => invoke(...args));
  const room = messageRoom(context);
  // Its options type is inferred through zod 3 interop, which resolves to never here; the options are the documented ones.
  const middleware = summarizationMiddleware({ model: summarizer, trigger: { tokens: room }, keep: { tokens: Math.floor(room / 2) } } as never);
  return agentLoop({ name: 'LangChain summarizationMiddleware', context, middleware, clock });
}

/** Ours, on a PGlite store opened before the first turn. */
export async function langchainSlidingContext(context: RunnerContext): Promise<SessionRunner> {
  const store = await HistoryStore.open({ dataDir: context.dataDir });
  const middleware = slidingContextMiddleware({ store, conversationId: context.conversationId, budgetTokens: context.budgetTokens });
  return agentLoop({
    name: 'LangChain + slidingContextMiddleware (ours)', context, middleware, clock: new HookClock(),
    close: async () => {
      await middleware.close();
      await store.close();
    },
  });
}
