/**
 * The Mastra (`@mastra/core` 1.x) configurations of the integration benchmark: an `Agent` without
 * memory, the app handing it the whole history each turn and appending the response messages,
 * with `TokenLimiterProcessor` among its input processors, or with ours for Mastra
 * (`sliding-context/mastra`) in its place. Our processor loads nothing of `@mastra/core` at run
 * time (it imports only its types), so the one copy loaded is the Agent's, installed here.
 */
import { Agent } from '@mastra/core/agent';
import {
  type ProcessAPIErrorArgs, type ProcessInputArgs, type ProcessInputStepArgs, type ProcessLLMRequestArgs, type ProcessLLMResponseArgs,
  type ProcessOutputStreamArgs,
  TokenLimiterProcessor,
} from '@mastra/core/processors';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
import { SlidingContextProcessor } from '../../src/integrations/mastra/index.js';
import { HistoryStore } from '../../src/store/history-store.js';
import { HookClock, type RunnerContext, scriptedOutput, type SessionRunner } from '../integrations/session-runner.js';

/** TokenLimiterProcessor, with the time of each of its input hooks kept on a clock. */
class TimedTokenLimiter extends TokenLimiterProcessor {
  readonly clock = new HookClock();

  override processInput(args: ProcessInputArgs) {
    return this.clock.time(() => super.processInput(args));
  }

  override processInputStep(args: ProcessInputStepArgs) {
    return this.clock.time(() => super.processInputStep(args));
  }

  override processLLMRequest(args: ProcessLLMRequestArgs) {
    return this.clock.time(() => super.processLLMRequest(args));
  }
}

/** The traffic's tool schemas (objects of string properties) in zod, which Mastra's tools take. */
function zodOf(schema: Record<string, unknown>) {
  const { properties = {}, required = [] } = schema as { properties?: Record<string, unknown>; required?: string[] };
  return z.object(Object.fromEntries(Object.keys(properties).map((key) => [key, required.includes(key) ? z.string() : z.string().optional()])));
}

/** The traffic's tools as Mastra tools, answering with the scripted outputs. */
function mastraTools(context: RunnerContext) {
  return Object.fromEntries(context.tools.map((definition) => [definition.name, createTool({
    id: definition.name,
    description: definition.description ?? '',
    inputSchema: zodOf(definition.inputSchema),
    execute: (_input, toolContext) => Promise.resolve(scriptedOutput(context.outputs, toolContext.agent?.toolCallId)),
  })]));
}

/** Our processor, with the time of each of its hooks kept on a clock (its store writes included). */
class TimedSlidingContext extends SlidingContextProcessor {
  readonly clock = new HookClock();

  override processInputStep(args: ProcessInputStepArgs): undefined {
    this.clock.timeSync(() => {
      super.processInputStep(args);
    });
    return undefined;
  }

  override processLLMRequest(args: ProcessLLMRequestArgs) {
    return this.clock.time(() => super.processLLMRequest(args));
  }

  override processLLMResponse(args: ProcessLLMResponseArgs) {
    return this.clock.time(() => super.processLLMResponse(args));
  }

  override processAPIError(args: ProcessAPIErrorArgs) {
    return this.clock.time(() => super.processAPIError(args));
  }

  override processOutputStream(args: ProcessOutputStreamArgs) {
    return this.clock.time(() => super.processOutputStream(args));
  }
}

/** The coding agent with the given processor: Mastra's model router on the session server. */
function codingAgent(context: RunnerContext, processors: Pick<ConstructorParameters<typeof Agent>[0], 'inputProcessors' | 'outputProcessors' | 'errorProcessors' | 'maxProcessorRetries'>) {
  return new Agent({
    id: 'coding-agent',
    name: 'coding-agent',
    instructions: context.system,
    // Mastra's own way to an OpenAI-compatible server: its model router, on the Chat Completions API.
    model: { id: `openai/${context.model}`, url: context.modelUrl, apiKey: 'sk-loopback', api: 'chat' },
    tools: mastraTools(context),
    ...processors,
  });
}

/** The app's loop: the whole history handed to `generate` each turn, the response messages appended. */
function appLoop(name: string, agent: Agent, hooks: Pick<SessionRunner, 'takeHookMs' | 'close'>): SessionRunner {
  const history: unknown[] = [];
  return {
    name,
    async turn(user) {
      history.push({ role: 'user', content: user });
      const result = await agent.generate(history as Parameters<typeof agent.generate>[0], { maxSteps: 12 });
      history.push(...result.response.messages ?? []);
    },
    ...hooks,
  };
}

export function mastraTokenLimiter(context: RunnerContext): SessionRunner {
  // The limit is the room for the prompt: the budget less the tool definitions it does not see.
  const limit = context.budgetTokens - context.counter.countPreamble({ provider: 'openai', model: context.model, tools: context.tools }).tokens;
  const limiter = new TimedTokenLimiter({ limit });
  const agent = codingAgent(context, { inputProcessors: [limiter] });
  return appLoop('Mastra TokenLimiterProcessor', agent, { takeHookMs: () => limiter.clock.take(), close: () => Promise.resolve() });
}

/**
 * Ours for Mastra: the processor from `sliding-context/mastra` in place of the TokenLimiterProcessor,
 * in the same agent and loop, as the README shows it (input, output and error processors), on a PGlite store
 * opened before the first turn. The budget is the whole request's: the processor counts the tools.
 */
export async function mastraSlidingContext(context: RunnerContext): Promise<SessionRunner> {
  const store = await HistoryStore.open({ dataDir: context.dataDir });
  const processor = new TimedSlidingContext({ store, conversationId: context.conversationId, budgetTokens: context.budgetTokens });
  const agent = codingAgent(context, { inputProcessors: [processor], outputProcessors: [processor], errorProcessors: [processor], maxProcessorRetries: 3 });
  return appLoop('Mastra + sliding-context processor (ours)', agent, {
    takeHookMs: () => processor.clock.take(),
    close: async () => {
      await processor.close();
      await store.close();
    },
  });
}
