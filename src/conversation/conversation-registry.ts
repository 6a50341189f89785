import { Conversation } from './conversation.js';
import type { CondenseOptions, ConversationListener } from './conversation.js';
import type { ConversationStore } from './conversation-store.js';
import {
  type ConversationPlacement, findConversationByPrefix, messageFingerprint, placeAfterMatch, type PrefixStore, sharedPrefixLength,
} from './find-conversation-by-prefix.js';
import { applyEvents } from '../message/apply-events.js';
import { newMessagesByUserTurns } from './new-messages-by-user-turns.js';
import type { ModelMessage, ToolDefinition } from '../message/message.js';
import type { WireFormat } from '../providers/wire-format-names.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { ModelBudgetOverrides } from '../window/model-budget.js';
import type { WindowPolicy } from '../window/window-policy.js';

/** What a registry reads and writes: the conversation port, the agents and their names. */
export type RegistryStore = ConversationStore & PrefixStore & { renameAgent(agentId: string, name: string | null): Promise<void> };

/** The settings every conversation of a registry opens with. */
export interface RegistrySettings {
  /** The shape of the requests its conversations build (the AI SDK's prompt, a provider's body). */
  readonly format: WireFormat;
  /** Kept in a new agent's meta as `client`: who made it (`ai-sdk`, `mastra`, `proxy`). */
  readonly client: string;
  readonly budgetTokens?: number | undefined;
  readonly modelBudget?: ModelBudgetOverrides | true | undefined;
  readonly policy?: WindowPolicy | undefined;
  readonly condense?: CondenseOptions | undefined;
  readonly onEvent?: ConversationListener | undefined;
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

/** The model a call goes to, its counter, its tools and its system prompt. */
export interface CallTarget {
  readonly provider: string;
  readonly model: string;
  readonly counter: TokenCounter;
  readonly tools: readonly ToolDefinition[] | undefined;
  /** The system prompt a body carries beside its messages (Anthropic `system`, Responses `instructions`). */
  readonly system?: string | undefined;
}

interface Open {
  readonly conversation: Conversation;
  /** The model, tools and system prompt it was opened with: a call with others reopens it. */
  readonly callKey: string;
  /** Fingerprints of the messages the agent's window sees, in order. */
  readonly fingerprints: string[];
}

/**
 * The conversations an integration (or the proxy) has open, by agent: each call is placed in one
 * (by its name, or by the prefix rule), its new messages appended. Conversations stay open between
 * calls, so the usage they learned keeps calibrating their counts.
 */
export class ConversationRegistry {
  readonly #store: RegistryStore;
  readonly #settings: RegistrySettings;
  readonly #open = new Map<string, Open>();

  constructor(store: RegistryStore, settings: RegistrySettings) {
    this.#store = store;
    this.#settings = settings;
  }

  /** Places a call's messages: appends what the store lacks and returns the conversation to window it. */
  async place(
    messages: readonly ModelMessage[],
    call: CallTarget & { readonly name: string | undefined },
  ): Promise<PlacedCall> {
    const sent = messages.map(messageFingerprint);
    const callKey = JSON.stringify([call.provider, call.model, call.system ?? null, call.tools ?? []]);
    const create = async () => {
      const conversation = await this.#openConversation(undefined, call);
      this.#open.set(conversation.agentId, { conversation, callKey, fingerprints: [] });
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
    if (open?.callKey !== callKey) {
      const conversation = await this.#openConversation(placement.agentId, call);
      open = { conversation, callKey, fingerprints: [] };
      this.#open.set(placement.agentId, open);
    }
    await open.conversation.append(placement.toAppend);
    open.fingerprints.length = 0;
    for (const fingerprint of sent) open.fingerprints.push(fingerprint);
    const { fingerprints } = open;
    return { conversation: open.conversation, stored: (message) => fingerprints.push(messageFingerprint(message)) };
  }

  /**
   * A named conversation: made (and named) on first use; a request that diverges from it forks it,
   * and the name moves to the fork. An agent's id names it too (a divergence then forks it, unnamed).
   */
  async #placeNamed(name: string, messages: readonly ModelMessage[], sent: readonly string[], create: () => Promise<string>): Promise<ConversationPlacement> {
    const agents = await this.#store.listAgents();
    const agent = agents.find((summary) => summary.name === name) ?? agents.find((summary) => summary.agentId === name);
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
    if (placement.placed === 'forked' && agent.name === name) {
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
      system: call.system,
      format: settings.format,
      budgetTokens: settings.budgetTokens,
      modelBudget: settings.modelBudget,
      policy: settings.policy,
      condense: settings.condense,
      meta: { client: settings.client },
    });
    if (settings.onEvent) conversation.on(settings.onEvent);
    return conversation;
  }
}
