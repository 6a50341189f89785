/**
 * Ours, two ways: the in-memory `WindowState` a host keeps next to its own history, and the
 * `Conversation` with its history in a PGlite store and only the window in memory.
 */
import { newAgentMeta } from '../../src/conversation/agent-settings.js';
import { type Conversation, openConversation } from '../../src/conversation/conversation.js';
import type { ModelMessage } from '../../src/message/message.js';
import { HistoryStore } from '../../src/store/history-store.js';
import { WindowState } from '../../src/window/window-state.js';
import { appendCounted } from '../workloads/append-counted.js';
import type { KeeperContext, WindowKeeper } from './window-keeper.js';

export function windowStateKeeper(context: KeeperContext): WindowKeeper {
  const { provider, model, budgetTokens, system, tools, counter } = context;
  const state = new WindowState({ provider, model, budgetTokens, system, tools, counter });
  let window: readonly ModelMessage[] = [];
  return {
    name: 'sliding-context WindowState',
    setUp(history) {
      state.append(history).prune();
      return Promise.resolve();
    },
    turn(turn) {
      state.append(turn).prune();
      window = state.windowMessages();
      return Promise.resolve();
    },
    lastWindow: () => window,
    close: () => Promise.resolve(),
  };
}

export function conversationKeeper(context: KeeperContext): WindowKeeper {
  const { provider, model, budgetTokens, system, tools, counter } = context;
  const target = { provider, model };
  let store: HistoryStore | undefined;
  let conversation: Conversation | undefined;
  let window: readonly ModelMessage[] = [];
  return {
    name: 'sliding-context Conversation (PGlite)',
    async setUp(history) {
      store = await HistoryStore.open({ dataDir: context.dataDir });
      const agentId = await store.createAgent(newAgentMeta(target, { budgetTokens, system, tools }, counter.countPreamble({ ...target, system, tools })));
      await appendCounted(store, agentId, history, counter, target);
      conversation = await openConversation({ store, agentId, ...target, counter });
    },
    async turn(turn) {
      if (!conversation) throw new Error('set up first');
      await conversation.append(turn);
      window = (await conversation.request()).report.messages;
      await conversation.endTurn();
    },
    lastWindow: () => window,
    close: async () => {
      await store?.close();
    },
  };
}
