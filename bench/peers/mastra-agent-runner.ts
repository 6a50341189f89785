/**
 * The Mastra (`@mastra/core` 1.x) configurations of the integration benchmark: an `Agent` without
 * memory, the app handing it the whole history each turn and appending the response messages,
 * with `TokenLimiterProcessor` among its input processors. Ours for Mastra (`sliding-context/mastra`)
 * takes its place in the same loop once it exists: see `mastraSlidingContext` below.
 */
import { Agent } from '@mastra/core/agent';
import { type ProcessInputArgs, type ProcessInputStepArgs, type ProcessLLMRequestArgs, TokenLimiterProcessor } from '@mastra/core/processors';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
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

export function mastraTokenLimiter(context: RunnerContext): SessionRunner {
  // The limit is the room for the prompt: the budget less the tool definitions it does not see.
  const limit = context.budgetTokens - context.counter.countPreamble({ provider: 'openai', model: context.model, tools: context.tools }).tokens;
  const limiter = new TimedTokenLimiter({ limit });
  const agent = new Agent({
    id: 'coding-agent',
    name: 'coding-agent',
    instructions: context.system,
    // Mastra's own way to an OpenAI-compatible server: its model router, on the Chat Completions API.
    model: { id: `openai/${context.model}`, url: context.modelUrl, apiKey: 'sk-loopback', api: 'chat' },
    tools: mastraTools(context),
    inputProcessors: [limiter],
  });
  const history: unknown[] = [];
  return {
    name: 'Mastra TokenLimiterProcessor',
    async turn(user) {
      history.push({ role: 'user', content: user });
      const result = await agent.generate(history as Parameters<typeof agent.generate>[0], { maxSteps: 12 });
      history.push(...result.response.messages ?? []);
    },
    takeHookMs: () => limiter.clock.take(),
    close: () => Promise.resolve(),
  };
}

/**
 * Ours for Mastra: the processor from `sliding-context/mastra` in place of the TokenLimiterProcessor,
 * in the loop above. Undefined until that entry point exists; the benchmark then prints its row as
 * not run.
 */
export const mastraSlidingContext: ((context: RunnerContext) => Promise<SessionRunner>) | undefined = undefined;
