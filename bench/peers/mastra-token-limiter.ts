/**
 * Mastra's `TokenLimiterProcessor` (`@mastra/core/processors`) over the whole history each turn,
 * at the stage Mastra runs it: on the provider prompt just before the model call. With its default
 * `best-fit` trim it walks back from the newest message, keeping each tool call with its results,
 * and keeps whatever still fits under the limit (it may skip an older message that does not fit);
 * it counts with Mastra's estimate (`tokenx`), not a tokenizer. The prompt is the AI SDK's
 * provider prompt: content in parts, tool calls with `input`, results with `output`.
 */
import { type ProcessLLMRequestArgs, TokenLimiterProcessor } from '@mastra/core/processors';
import type { ModelMessage } from '../../src/message/message.js';
import { type KeeperContext, outputText, textOf, type WindowKeeper } from './window-keeper.js';

type Prompt = ProcessLLMRequestArgs['prompt'];
type PromptMessage = Prompt[number];
type AssistantPart = Exclude<Extract<PromptMessage, { role: 'assistant' }>['content'], string>[number];

function toPrompt(message: ModelMessage): PromptMessage {
  if (message.role === 'tool') {
    return {
      role: 'tool',
      content: message.content.map((part) => ({
        type: 'tool-result' as const, toolCallId: part.toolCallId, toolName: part.toolName, output: { type: 'text' as const, value: outputText(part.output) },
      })),
    };
  }
  if (message.role === 'assistant' && typeof message.content !== 'string') {
    return {
      role: 'assistant',
      content: message.content.flatMap((part): AssistantPart[] => {
        if (part.type === 'text') return [{ type: 'text' as const, text: part.text }];
        if (part.type === 'tool-call') return [{ type: 'tool-call' as const, toolCallId: part.toolCallId, toolName: part.toolName, input: part.input }];
        return [];
      }),
    };
  }
  if (message.role === 'system') return { role: 'system', content: textOf(message) };
  return { role: message.role, content: [{ type: 'text', text: textOf(message) }] };
}

export function mastraTokenLimiterKeeper(context: KeeperContext): WindowKeeper {
  const { provider, model, tools, counter, budgetTokens, system } = context;
  // The limit is the room for the prompt: the budget less the tool definitions it does not see.
  const limiter = new TokenLimiterProcessor({ limit: budgetTokens - counter.countPreamble({ provider, model, tools }).tokens });
  const systemMessage: PromptMessage = { role: 'system', content: system };
  const history: Prompt = [systemMessage];
  const neutral = new Map<PromptMessage, ModelMessage>();
  let window: Prompt = [];
  const add = (messages: readonly ModelMessage[]) => {
    for (const message of messages) {
      const part = toPrompt(message);
      neutral.set(part, message);
      history.push(part);
    }
  };
  return {
    name: 'Mastra TokenLimiterProcessor',
    setUp(messages) {
      add(messages);
      return Promise.resolve();
    },
    async turn(turn) {
      add(turn);
      // The limiter reads only the prompt; the rest of a model call's context does not concern it.
      const result = await limiter.processLLMRequest({ prompt: history } as ProcessLLMRequestArgs);
      window = result?.prompt ?? history.slice();
    },
    lastWindow: () => window.flatMap((message) => neutral.get(message) ?? []),
    close: () => Promise.resolve(),
  };
}
