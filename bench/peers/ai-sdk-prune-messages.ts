/**
 * The AI SDK's `pruneMessages` over the whole history each turn, with the settings its
 * documentation suggests: reasoning before the last message and tool calls before the last two
 * messages removed, empty messages dropped. It has no token budget: it makes a history smaller,
 * it does not fit it to a window.
 */
import { pruneMessages, type ModelMessage as AiModelMessage } from 'ai';
import type { ModelMessage } from '../../src/message/message.js';
import type { WindowKeeper } from './window-keeper.js';

export function aiSdkPruneKeeper(): WindowKeeper {
  // Our message model is the AI SDK's: the history is handed over as it is.
  const history: AiModelMessage[] = [];
  let window: AiModelMessage[] = [];
  return {
    name: 'AI SDK pruneMessages',
    setUp(messages) {
      for (const message of messages as AiModelMessage[]) history.push(message);
      return Promise.resolve();
    },
    turn(turn) {
      history.push(...(turn as AiModelMessage[]));
      window = pruneMessages({ messages: history, reasoning: 'before-last-message', toolCalls: 'before-last-2-messages', emptyMessages: 'remove' });
      return Promise.resolve();
    },
    lastWindow: () => window as ModelMessage[],
    close: () => Promise.resolve(),
  };
}
