/**
 * Mastra's `TokenLimiter` memory processor (`@mastra/memory`) over the whole history each turn:
 * it walks back from the newest message, counting each with js-tiktoken (o200k_base), until the
 * limit. Its messages are Mastra's core messages (tool calls with `args`, results with `result`).
 * Mastra 1.x, where the limiter moved into `@mastra/core`, needs Node 22; this is the latest
 * release line that runs on Node 20.
 */
import { noopLogger } from '@mastra/core/logger';
import type { CoreAssistantMessage, CoreMessage } from '@mastra/core/llm';
import { TokenLimiter } from '@mastra/memory/processors';
import type { ModelMessage } from '../../src/message/message.js';
import { type KeeperContext, outputText, type WindowKeeper } from './window-keeper.js';

function toCore(message: ModelMessage): CoreMessage {
  if (message.role === 'tool') {
    return {
      role: 'tool',
      content: message.content.map((part) => ({ type: 'tool-result' as const, toolCallId: part.toolCallId, toolName: part.toolName, result: outputText(part.output) })),
    };
  }
  if (message.role === 'assistant' && typeof message.content !== 'string') {
    return {
      role: 'assistant',
      content: message.content.flatMap((part): Exclude<CoreAssistantMessage['content'], string> => {
        if (part.type === 'text') return [{ type: 'text', text: part.text }];
        if (part.type === 'tool-call') return [{ type: 'tool-call', toolCallId: part.toolCallId, toolName: part.toolName, args: part.input }];
        return [];
      }),
    };
  }
  return { role: message.role, content: typeof message.content === 'string' ? message.content : '' };
}

export function mastraTokenLimiterKeeper(context: KeeperContext): WindowKeeper {
  const { provider, model, tools, counter, budgetTokens, system } = context;
  // The limit is the room for messages: the budget less the tool definitions it does not see.
  const limiter = new TokenLimiter(budgetTokens - counter.countPreamble({ provider, model, tools }).tokens);
  limiter.__setLogger(noopLogger);
  const history: CoreMessage[] = [];
  const neutral = new Map<CoreMessage, ModelMessage>();
  let window: CoreMessage[] = [];
  const add = (messages: readonly ModelMessage[]) => {
    for (const message of messages) {
      const core = toCore(message);
      neutral.set(core, message);
      history.push(core);
    }
  };
  return {
    name: 'Mastra TokenLimiter',
    setUp(messages) {
      add(messages);
      return Promise.resolve();
    },
    turn(turn) {
      add(turn);
      window = limiter.process(history, { systemMessage: system });
      return Promise.resolve();
    },
    lastWindow: () => window.flatMap((message) => neutral.get(message) ?? []),
    close: () => Promise.resolve(),
  };
}
