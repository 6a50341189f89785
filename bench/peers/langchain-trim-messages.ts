/**
 * LangChain.js `trimMessages` (strategy `last`, starting on a human message, system kept) over
 * the whole history each turn, as its documentation shows, with a tiktoken counter in the shape
 * of LangChain's own example. The counter remembers each message's count by id, so the repeated
 * counting of shrinking prefixes that `trimMessages` does costs lookups, not tokenizing: the
 * fastest honest setup we know for it.
 */
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage, trimMessages } from '@langchain/core/messages';
import type { ModelMessage } from '../../src/message/message.js';
import { type KeeperContext, outputText, textOf, type WindowKeeper } from './window-keeper.js';

export function langchainTrimKeeper(context: KeeperContext): WindowKeeper {
  const { tiktoken, counter, provider, model, tools, budgetTokens, system } = context;
  const neutral = new Map<string, ModelMessage>();
  const history: BaseMessage[] = [new SystemMessage({ content: system, id: 'system' })];
  const counts = new Map<string, number>();
  const countOne = (message: BaseMessage): number => {
    const id = message.id ?? '';
    let tokens = counts.get(id);
    if (tokens === undefined) {
      const calls = message instanceof AIMessage && message.tool_calls?.length ? JSON.stringify(message.tool_calls) : '';
      tokens = 3 + tiktoken.encode(`${message.content as string}${calls}`).length;
      counts.set(id, tokens);
    }
    return tokens;
  };
  const tokenCounter = (messages: BaseMessage[]) => messages.reduce((sum, message) => sum + countOne(message), 3);
  // Room for the messages: the budget less what the tool definitions take.
  const maxTokens = budgetTokens - counter.countPreamble({ provider, model, tools }).tokens;
  let window: BaseMessage[] = [];
  const add = (messages: readonly ModelMessage[]) => {
    for (const message of messages) {
      const id = `m${neutral.size}`;
      neutral.set(id, message);
      if (message.role === 'user') history.push(new HumanMessage({ content: textOf(message), id }));
      else if (message.role === 'assistant') {
        const calls = typeof message.content === 'string' ? [] : message.content.flatMap((part) => (part.type === 'tool-call' ? [{ id: part.toolCallId, name: part.toolName, args: part.input as Record<string, unknown>, type: 'tool_call' as const }] : []));
        history.push(new AIMessage({ content: textOf(message), tool_calls: calls, id }));
      } else if (message.role === 'tool') {
        for (const [index, part] of message.content.entries()) {
          history.push(new ToolMessage({ content: outputText(part.output), tool_call_id: part.toolCallId, name: part.toolName, id: `${id}:${index}` }));
        }
      }
    }
  };
  return {
    name: 'LangChain trimMessages',
    setUp(messages) {
      add(messages);
      return Promise.resolve();
    },
    async turn(turn) {
      add(turn);
      window = await trimMessages(history, { maxTokens, strategy: 'last', tokenCounter, startOn: 'human', includeSystem: true });
    },
    lastWindow() {
      // Back to our model: a tool message split into one ToolMessage per result comes back with the results kept.
      const messages: ModelMessage[] = [];
      let lastTool: { id: string; message: ModelMessage & { role: 'tool' } } | undefined;
      for (const message of window) {
        const [id = '', part] = (message.id ?? '').split(':');
        const original = neutral.get(id);
        if (!original) continue;
        if (original.role !== 'tool' || part === undefined) {
          messages.push(original);
          lastTool = undefined;
          continue;
        }
        const result = original.content[Number(part)];
        if (!result) continue;
        if (lastTool?.id === id) lastTool.message.content.push(result);
        else {
          lastTool = { id, message: { role: 'tool', content: [result] } };
          messages.push(lastTool.message);
        }
      }
      return messages;
    },
    close: () => Promise.resolve(),
  };
}
