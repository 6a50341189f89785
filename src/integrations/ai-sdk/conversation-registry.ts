import { Conversation } from '../../conversation/conversation.js';
import type { CondenseOptions, ConversationListener } from '../../conversation/conversation.js';
import {
  type ConversationPlacement, findConversationByPrefix, messageFingerprint, placeAfterMatch, sharedPrefixLength,
} from '../../conversation/find-conversation-by-prefix.js';
import { applyEvents } from '../../message/apply-events.js';
import { newMessagesByUserTurns } from '../../conversation/new-messages-by-user-turns.js';
import type { ModelMessage, ToolDefinition } from '../../message/message.js';
import type { HistoryStore } from '../../store/history-store.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import type { ModelBudgetOverrides } from '../../window/model-budget.js';
import type { WindowPolicy } from '../../window/window-policy.js';

/** The settings every conversation of a middleware opens with. */
export interface RegistrySettings {
  readonly budgetTokens?: number | undefined;
  readonly modelBudget?: ModelBudgetOverrides | true | undefined;
  readonly policy?: WindowPolicy | undefined;
  readonly condense?: CondenseOptions | undefined;
  readonly onEvent?: ConversationListener | undefined;
  /** The framework recorded in the agent's meta (`client`); default `ai-sdk`. */
  readonly client?: string | undefined;
  /**
   * A named conversation whose history comes back in another shape (merged messages, or only the
   * latest ones recalled): a request that diverges from it continues it from its first user
   * message not stored yet (see {@link newMessagesByUserTurns}), instead of forking it.
   */
  readonly historyReshaped?: boolean | undefined;
}

/** What one model call works with: the conversation, its messages stored, and what it sent. */
export interface PlacedCall {
  readonly conversation: Conversation;
  /** Records a message stored after the call (the answer), so that the next call finds it. */
  readonly stored: (message: ModelMessage) => void;
}

/** The model a call goes to, its counter and its tools. */
interface CallTarget {
  readonly provider: string;
  readonly model: string;
  readonly counter: TokenCounter;
  readonly tools: readonly ToolDefinition[] | undefined;
}

interface Open {
  readonly conversation: Conversation;
  readonly toolsKey: string;
  /** Fingerprints of the messages the agent's window sees, in order. */
  readonly fingerprints: string[];
}

/**
 * The conversations a middleware has open, by agent: each call is placed in one (by its name, or
 * by the prefix rule), its new messages appended. Conversations stay open between calls, so the
 * usage they learned keeps calibrating their counts.
 */
export class ConversationRegistry {
  readonly #store: HistoryStore;
  readonly #settings: RegistrySettings;
  readonly #open = new Map<string, Open>();

  constructor(store: HistoryStore, settings: RegistrySettings) {
    this.#store = store;
    this.#settings = settings;
  }

  /** Places a call's messages: appends what the store lacks and returns the conversation to window it. */
  async place(
    messages: readonly ModelMessage[],
    call: CallTarget & { readonly name: string | undefined },
  ): Promise<PlacedCall> {
    const sent = messages.map(messageFingerprint);
    const toolsKey = JSON.stringify(call.tools ?? []);
    const create = async () => {
      const conversation = await this.#openConversation(undefined, call);
      this.#open.set(conversation.agentId, { conversation, toolsKey, fingerprints: [] });
      return conversation.agentId;
    };
    let placement: ConversationPlacement;
    if (call.name !== undefined) placement = await this.#placeNamed(call.name, messages, sent, create);
    else {
      const known = [...this.#open]
        .filter(([, open]) => open.fingerprints.length > 0 && sharedPrefixLength(open.fingerprints, sent) === open.fingerprints.length)
        .sort(([, a], [, b]) => b.fingerprints.length - a.fingerprints.length)[0];
      placement = known
        ? { agentId: known[0], toAppend: messages.slice(known[1].fingerprints.length), placed: 'continued' }
        : await placeAfterMatch(this.#store, await findConversationByPrefix(this.#store, messages), messages, create);
    }
    let open = this.#open.get(placement.agentId);
    if (open?.toolsKey !== toolsKey) {
      const conversation = await this.#openConversation(placement.agentId, call);
      open = { conversation, toolsKey, fingerprints: [] };
      this.#open.set(placement.agentId, open);
    }
    await open.conversation.append(placement.toAppend);
    open.fingerprints.length = 0;
    for (const fingerprint of sent) open.fingerprints.push(fingerprint);
    const { fingerprints } = open;
    return { conversation: open.conversation, stored: (message) => fingerprints.push(messageFingerprint(message)) };
  }

  /** A named conversation: made (and named) on first use; a request that diverges from it forks it, and the name moves to the fork. */
  async #placeNamed(name: string, messages: readonly ModelMessage[], sent: readonly string[], create: () => Promise<string>): Promise<ConversationPlacement> {
    const agent = (await this.#store.listAgents()).find((summary) => summary.name === name);
    if (!agent) {
      const agentId = await create();
      await this.#store.renameAgent(agentId, name);
      return { agentId, toAppend: messages, placed: 'created' };
    }
    const open = this.#open.get(agent.agentId);
    const visible = open?.fingerprints ?? applyEvents((await this.#store.history(agent.agentId)).map((row) => row.message)).map(messageFingerprint);
    const match = { agentId: agent.agentId, shared: sharedPrefixLength(visible, sent), storedLength: visible.length };
    if (this.#settings.historyReshaped && match.shared < match.storedLength) {
      const stored = applyEvents((await this.#store.history(agent.agentId)).map((row) => row.message));
      return { agentId: agent.agentId, toAppend: newMessagesByUserTurns(stored, messages), placed: 'continued' };
    }
    const placement = await placeAfterMatch(this.#store, match, messages, create);
    if (placement.placed === 'forked') {
      await this.#store.renameAgent(agent.agentId, null);
      await this.#store.renameAgent(placement.agentId, name);
    }
    return placement;
  }

  async #openConversation(
    agentId: string | undefined,
    call: CallTarget,
  ): Promise<Conversation> {
    const settings = this.#settings;
    const conversation = await Conversation.open({
      store: this.#store,
      agentId,
      provider: call.provider,
      model: call.model,
      counter: call.counter,
      tools: call.tools,
      format: 'ai-sdk',
      budgetTokens: settings.budgetTokens,
      modelBudget: settings.modelBudget,
      policy: settings.policy,
      condense: settings.condense,
      meta: { client: settings.client ?? 'ai-sdk' },
    });
    if (settings.onEvent) conversation.on(settings.onEvent);
    return conversation;
  }
}
