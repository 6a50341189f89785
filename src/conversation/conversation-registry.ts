import { Conversation } from './conversation.js';
import type { CondenseOptions, ConversationListener } from './conversation.js';
import type { ConversationStore } from './conversation-store.js';
import { type ConversationPlacement, findConversationByPrefix, placeAfterMatch, type PrefixStore } from './find-conversation-by-prefix.js';
import { copyMessageContent, isFrozenMessageCopy, sharedMessagePrefixLength } from './same-message-content.js';
import { applyEvents } from '../message/apply-events.js';
import { newMessagesAfterSharedTurn, newMessagesByUserTurns } from './new-messages-by-user-turns.js';
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
  /** Its conversations record what a request evicts with their next write (see `OpenConversationOptions.deferEvictionRecords`). */
  readonly deferEvictionRecords?: boolean | undefined;
  /** Its conversations convert each message once (see `OpenConversationOptions.reuseConvertedMessages`). */
  readonly reuseConvertedMessages?: boolean | undefined;
}

/** What one model call works with: the conversation, its messages stored, and what it sent. */
export interface PlacedCall {
  readonly conversation: Conversation;
  /** Records a message stored after the call (the answer), so that the next call finds it. */
  readonly stored: (message: ModelMessage) => void;
  /**
   * True while nothing was placed in the conversation or stored in it since this call was placed:
   * its answer would follow its own request. False once another call's answer came first (a
   * client's retry of the same request, answered sooner).
   */
  readonly answerFollowsRequest: () => boolean;
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
  /**
   * Copies of the messages the agent's window sees, in order: a call that extends them is compared
   * with them message by message (no fingerprint built), and only its new tail is copied.
   */
  readonly known: ModelMessage[];
  /** Counts the calls placed in it and the answers stored: a call's answer follows its request while this stays as the call left it. */
  changes: number;
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
  /**
   * The agent each name this registry placed a call under went to (`byName` when the name is the
   * agent's name, not its id): later calls under that name find it without listing the agents,
   * a read that grows with the whole store. A fork made here moves the name, here and in the store.
   */
  readonly #named = new Map<string, { readonly agentId: string; readonly byName: boolean }>();
  /** Changes whenever what the open conversations hold changes: a check made at one generation holds while it lasts. */
  #generation = 0;

  constructor(store: RegistryStore, settings: RegistrySettings) {
    this.#store = store;
    this.#settings = settings;
  }

  /** Places a call's messages: appends what the store lacks and returns the conversation to window it. */
  place(messages: readonly ModelMessage[], call: CallTarget & { readonly name: string | undefined }): Promise<PlacedCall> {
    return this.#place(messages, call, call.name === undefined ? this.openAgentExtendedBy(messages) : undefined);
  }

  /**
   * {@link place} for an unnamed call found to extend the open conversation `agentId` before it
   * waited its turn: `undefined`, and nothing done, when that is no longer the conversation it extends.
   */
  async placeExtending(agentId: string, messages: readonly ModelMessage[], call: CallTarget, checkedAt?: number): Promise<PlacedCall | undefined> {
    if (checkedAt !== this.#generation && this.openAgentExtendedBy(messages) !== agentId) return undefined;
    return this.#place(messages, { ...call, name: undefined }, agentId);
  }

  async #place(
    messages: readonly ModelMessage[],
    call: CallTarget & { readonly name: string | undefined },
    extended: string | undefined,
  ): Promise<PlacedCall> {
    // A check made while this runs, or before, no longer holds after it.
    this.#generation++;
    try {
      return await this.#placeNow(messages, call, extended);
    } finally {
      this.#generation++;
    }
  }

  async #placeNow(
    messages: readonly ModelMessage[],
    call: CallTarget & { readonly name: string | undefined },
    extended: string | undefined,
  ): Promise<PlacedCall> {
    const callKey = JSON.stringify([call.provider, call.model, call.system ?? null, call.tools ?? []]);
    const create = async () => {
      const conversation = await this.#openConversation(undefined, call);
      this.#open.set(conversation.agentId, { conversation, callKey, known: [], changes: 0 });
      return conversation.agentId;
    };
    let placement: ConversationPlacement;
    // How many leading messages of the call the open conversation holds already, checked equal: kept, not copied again.
    let kept: number;
    if (call.name !== undefined) ({ placement, kept } = await this.#placeNamed(call.name, messages, create));
    else if (extended !== undefined) {
      kept = this.#open.get(extended)?.known.length ?? 0;
      placement = { agentId: extended, toAppend: messages.slice(kept), placed: 'continued' };
    } else ({ placement, kept } = await this.#placeByPrefix(messages, create));
    const before = this.#open.get(placement.agentId);
    let open = before;
    if (open?.callKey !== callKey) {
      // The one it replaces writes what waits first: the new one loads the window from the store.
      await before?.conversation.writeEvictionRecords();
      const conversation = await this.#openConversation(placement.agentId, call);
      open = { conversation, callKey, known: before?.known ?? [], changes: before?.changes ?? 0 };
      this.#open.set(placement.agentId, open);
    }
    await open.conversation.append(placement.toAppend);
    const { known } = open;
    known.length = kept;
    // A message the call holds as a frozen copy replaces the equal one kept: the next call holding it compares it at once.
    for (let index = 0; index < kept; index++) {
      const sent = messages[index] as ModelMessage;
      if (known[index] !== sent && isFrozenMessageCopy(sent)) known[index] = sent;
    }
    for (let index = kept; index < messages.length; index++) known.push(copyMessageContent(messages[index] as ModelMessage));
    const placedOpen = open;
    const placedAt = ++placedOpen.changes;
    return {
      conversation: open.conversation,
      stored: (message) => {
        known.push(copyMessageContent(message));
        placedOpen.changes++;
        this.#generation++;
      },
      answerFollowsRequest: () => placedOpen.changes === placedAt && this.#open.get(placedOpen.conversation.agentId) === placedOpen,
    };
  }

  /** Writes what the open conversations' requests evicted and have not recorded yet (see {@link RegistrySettings.deferEvictionRecords}). */
  async writeEvictionRecords(): Promise<void> {
    for (const { conversation } of this.#open.values()) await conversation.writeEvictionRecords();
  }

  /** What the open conversations hold, as a number that changes with it: pass it to {@link placeExtending} to spare its second check. */
  get generation(): number {
    return this.#generation;
  }

  /**
   * The open conversation a call's messages extend (the longest one), found in memory: each open
   * one's known messages are compared with the call's, longest first, until one matches whole.
   * `undefined` when none does (the call then goes to the store's prefix rule).
   */
  openAgentExtendedBy(messages: readonly ModelMessage[]): string | undefined {
    const candidates = [...this.#open]
      .filter(([, open]) => open.known.length > 0 && open.known.length <= messages.length)
      .sort(([, a], [, b]) => b.known.length - a.known.length);
    for (const [agentId, open] of candidates) if (sharedMessagePrefixLength(open.known, messages) === open.known.length) return agentId;
    return undefined;
  }

  /**
   * An unnamed call that extends no open conversation, placed by the prefix rule. With a history
   * that comes back reshaped, a call that diverges from a conversation only after its latest
   * question, and asks a new one, continues it from that new question instead of forking it.
   */
  async #placeByPrefix(messages: readonly ModelMessage[], create: () => Promise<string>): Promise<{ placement: ConversationPlacement; kept: number }> {
    const reshaped = this.#settings.historyReshaped === true;
    const asked = (toAppend: ModelMessage[] | undefined) => toAppend !== undefined && toAppend.length > 0;
    if (reshaped) {
      let best: { agentId: string; shared: number; toAppend: ModelMessage[] } | undefined;
      for (const [agentId, open] of this.#open) {
        const shared = sharedMessagePrefixLength(open.known, messages);
        const toAppend = newMessagesAfterSharedTurn(open.known, messages, shared);
        if (asked(toAppend) && shared > (best?.shared ?? 0)) best = { agentId, shared, toAppend: toAppend ?? [] };
      }
      if (best) return { placement: { agentId: best.agentId, toAppend: best.toAppend, placed: 'continued' }, kept: best.shared };
    }
    const match = await findConversationByPrefix(this.#store, messages);
    if (reshaped && match && match.shared < match.storedLength) {
      const visible = applyEvents((await this.#store.history(match.agentId)).map((row) => row.message));
      const toAppend = newMessagesAfterSharedTurn(visible, messages, match.shared);
      if (asked(toAppend)) return { placement: { agentId: match.agentId, toAppend: toAppend ?? [], placed: 'continued' }, kept: 0 };
    }
    return { placement: await placeAfterMatch(this.#store, match, messages, create), kept: 0 };
  }

  /**
   * A named conversation: made (and named) on first use; a request that diverges from it forks it,
   * and the name moves to the fork. An agent's id names it too (a divergence then forks it, unnamed).
   */
  async #placeNamed(
    name: string,
    messages: readonly ModelMessage[],
    create: () => Promise<string>,
  ): Promise<{ placement: ConversationPlacement; kept: number }> {
    const agent = this.#named.get(name) ?? await this.#storedAgentNamed(name);
    if (!agent) {
      const agentId = await create();
      await this.#store.renameAgent(agentId, name);
      this.#named.set(name, { agentId, byName: true });
      return { placement: { agentId, toAppend: messages, placed: 'created' }, kept: 0 };
    }
    const open = this.#open.get(agent.agentId);
    const visible = open?.known ?? applyEvents((await this.#store.history(agent.agentId)).map((row) => row.message));
    const match = { agentId: agent.agentId, shared: sharedMessagePrefixLength(visible, messages), storedLength: visible.length };
    this.#named.set(name, agent);
    if (this.#settings.historyReshaped && match.shared < match.storedLength) {
      const toAppend = (open && newMessagesAfterSharedTurn(open.known, messages, match.shared))
        ?? newMessagesByUserTurns(applyEvents((await this.#store.history(agent.agentId)).map((row) => row.message)), messages);
      return { placement: { agentId: agent.agentId, toAppend, placed: 'continued' }, kept: open ? match.shared : 0 };
    }
    const placement = await placeAfterMatch(this.#store, match, messages, create);
    if (placement.placed === 'forked' && agent.byName) {
      await this.#store.renameAgent(agent.agentId, null);
      await this.#store.renameAgent(placement.agentId, name);
      this.#named.set(name, { agentId: placement.agentId, byName: true });
    }
    const kept = open && placement.placed === 'continued' && placement.agentId === agent.agentId ? match.shared : 0;
    return { placement, kept };
  }

  /** The stored agent a name names: the first agent of that name, else the agent of that id. */
  async #storedAgentNamed(name: string): Promise<{ agentId: string; byName: boolean } | undefined> {
    const agents = await this.#store.listAgents();
    const agent = agents.find((summary) => summary.name === name) ?? agents.find((summary) => summary.agentId === name);
    return agent && { agentId: agent.agentId, byName: agent.name === name };
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
      // Each call carries its whole body: one without a system prompt or tools has none.
      preambleAsGiven: true,
      format: settings.format,
      budgetTokens: settings.budgetTokens,
      modelBudget: settings.modelBudget,
      policy: settings.policy,
      condense: settings.condense,
      meta: { client: settings.client },
      deferEvictionRecords: settings.deferEvictionRecords,
      reuseConvertedMessages: settings.reuseConvertedMessages,
    });
    if (settings.onEvent) conversation.on(settings.onEvent);
    return conversation;
  }
}
