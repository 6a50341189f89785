/**
 * The AI SDK (ai 7) configurations: an app's own loop that appends each `generateText` call's
 * `responseMessages` to its history and sends the whole history again, through `@ai-sdk/openai`.
 * With no pruning; with `pruneMessages` in `prepareStep`, as the AI SDK documents it; and with
 * our `slidingContext` middleware through `wrapLanguageModel`.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, type LanguageModelMiddleware, type ModelMessage, pruneMessages, stepCountIs, type ToolSet, tool, wrapLanguageModel } from 'ai';
import { slidingContext } from '../../src/integrations/ai-sdk/index.js';
import { HistoryStore } from '../../src/store/history-store.js';
import { HookClock, type RunnerContext, scriptedOutput, type SessionRunner } from './session-runner.js';

type WrapOptions = Parameters<NonNullable<LanguageModelMiddleware['wrapGenerate']>>[0];
type WrappedModel = WrapOptions['model'];

function aiSdkTools(context: RunnerContext): ToolSet {
  return Object.fromEntries(context.tools.map((definition) => [definition.name, tool({
    description: definition.description ?? '',
    inputSchema: jsonSchema(definition.inputSchema as Parameters<typeof jsonSchema>[0]),
    execute: (_input: unknown, { toolCallId }) => scriptedOutput(context.outputs, toolCallId),
  })]));
}

/** The middleware with the time of its own work kept on `clock`: the model call it makes is left out. */
function timedMiddleware(middleware: LanguageModelMiddleware, clock: HookClock): LanguageModelMiddleware {
  const wrapGenerate = middleware.wrapGenerate;
  if (!wrapGenerate) return middleware;
  const timedModel = (model: WrappedModel): WrappedModel => ({
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doGenerate: (params) => clock.exclude(() => model.doGenerate(params)),
    doStream: (params) => clock.exclude(() => model.doStream(params)),
  });
  return {
    ...middleware,
    wrapGenerate: (options) => clock.time(() => wrapGenerate({
      ...options,
      model: timedModel(options.model),
      doGenerate: () => clock.exclude(options.doGenerate),
    })),
  };
}

/** The app's loop: the history it keeps, one `generateText` call a turn. */
function manualLoop(input: {
  name: string;
  context: RunnerContext;
  model: Parameters<typeof generateText>[0]['model'];
  prepareStep?: Parameters<typeof generateText>[0]['prepareStep'];
  takeHookMs: () => number | undefined;
  close?: () => Promise<void>;
}): SessionRunner {
  const { context } = input;
  const tools = aiSdkTools(context);
  const history: ModelMessage[] = [];
  return {
    name: input.name,
    async turn(user) {
      history.push({ role: 'user', content: user });
      const result = await generateText({
        model: input.model, instructions: context.system, messages: history, tools, stopWhen: stepCountIs(12), maxRetries: 0,
        ...(input.prepareStep ? { prepareStep: input.prepareStep } : {}),
      });
      history.push(...result.responseMessages);
    },
    takeHookMs: input.takeHookMs,
    close: input.close ?? (() => Promise.resolve()),
  };
}

const openAiModel = (context: RunnerContext) => createOpenAI({ baseURL: context.modelUrl, apiKey: 'sk-loopback' }).chat(context.model);

export function aiSdkNoPruning(context: RunnerContext): SessionRunner {
  return manualLoop({ name: 'AI SDK, no pruning', context, model: openAiModel(context), takeHookMs: () => undefined });
}

export function aiSdkPruneMessages(context: RunnerContext): SessionRunner {
  const clock = new HookClock();
  return manualLoop({
    name: 'AI SDK pruneMessages (prepareStep)',
    context,
    model: openAiModel(context),
    // The settings the AI SDK's documentation shows; pruneMessages takes no budget.
    prepareStep: ({ messages }) => clock.time(() => ({
      messages: pruneMessages({ messages, reasoning: 'before-last-message', toolCalls: 'before-last-2-messages', emptyMessages: 'remove' }),
    })),
    takeHookMs: () => clock.take(),
  });
}

/** Ours, on a PGlite store opened before the first turn. */
export async function aiSdkSlidingContext(context: RunnerContext): Promise<SessionRunner> {
  const clock = new HookClock();
  const store = await HistoryStore.open({ dataDir: context.dataDir });
  const middleware = slidingContext({ store, conversationId: context.conversationId, budgetTokens: context.budgetTokens });
  const model = wrapLanguageModel({ model: openAiModel(context), middleware: timedMiddleware(middleware, clock) });
  return manualLoop({
    name: 'AI SDK + slidingContext (ours)',
    context,
    model,
    takeHookMs: () => clock.take(),
    close: async () => {
      await middleware.close();
      await store.close();
    },
  });
}
