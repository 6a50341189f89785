import { SlidingContextError } from '../errors/sliding-context-error.js';
import { TokenCounterCache } from '../tokens/token-counter-cache.js';
import type { CondenseOptions } from '../conversation/conversation.js';
import { ConversationRegistry, type PlacedCall, type RegistryStore } from '../conversation/conversation-registry.js';
import { requireValidConversation } from '../exchange/require-valid-conversation.js';
import type { ModelMessage, ToolDefinition } from '../message/message.js';
import type { ModelBudgetOverrides } from '../window/model-budget.js';
import type { WindowPolicy } from '../window/window-policy.js';
import { AgentLanes } from './agent-lanes.js';
import type { WindowedEndpoint } from './proxy-endpoints.js';
import type { RecordedReply } from './recorded-reply.js';

/** How the proxy windows every conversation. */
export interface ProxyWindowSettings {
  /** The budget of every conversation; without it, the model's (`modelBudget`), else the agent's stored one, else 100,000. */
  readonly budgetTokens?: number | undefined;
  readonly modelBudget?: ModelBudgetOverrides | true | undefined;
  readonly policy?: WindowPolicy | undefined;
  readonly condense?: CondenseOptions | undefined;
}

/** A request's content, taken apart, ready to place. */
export interface ProxiedCall {
  readonly endpoint: WindowedEndpoint;
  readonly model: string;
  readonly system: string | undefined;
  readonly tools: readonly ToolDefinition[] | undefined;
  readonly messages: readonly ModelMessage[];
  /** The `x-sliding-context-agent` header: an agent's name or id. */
  readonly pinned: string | undefined;
}

/**
 * The conversations the proxy keeps, one registry per body format (a conversation's requests are
 * built in its client's format), with a counter per model. Store work runs one call at a time per
 * agent, agents side by side (see {@link AgentLanes}), so that two requests never place the same
 * history twice; a request that extends no open conversation is placed alone. The upstream calls
 * run side by side.
 */
export class ProxyConversations {
  readonly #registries = new Map<string, ConversationRegistry>();
  readonly #counters = new TokenCounterCache();
  readonly #store: RegistryStore;
  readonly #settings: ProxyWindowSettings;
  readonly #lanes = new AgentLanes();

  constructor(store: RegistryStore, settings: ProxyWindowSettings) {
    this.#store = store;
    this.#settings = settings;
  }

  /**
   * Places a request's messages by the prefix rule (or the pinned agent) and stores what the
   * agent lacks. A conversation no window can be made of is refused before anything is stored.
   */
  async place(call: ProxiedCall): Promise<PlacedCall> {
    requireValidConversation(call.messages);
    const { api, format } = call.endpoint;
    const counter = await this.#counters.counterFor({ provider: api, model: call.model });
    let registry = this.#registries.get(format);
    if (!registry) {
      // What a request evicts is recorded with the answer, after the client has it; each message is converted once.
      registry = new ConversationRegistry(this.#store, { ...this.#settings, format, client: 'proxy', deferEvictionRecords: true, reuseConvertedMessages: true });
      this.#registries.set(format, registry);
    }
    const placing = registry;
    const target = { provider: api, model: call.model, counter, tools: call.tools, system: call.system, name: call.pinned };
    // The open conversation the request extends, found in memory: its lane, if it still extends it there.
    const checkedAt = placing.generation;
    const extended = call.pinned === undefined ? placing.openAgentExtendedBy(call.messages) : undefined;
    if (extended !== undefined) {
      // Checked again in its lane only if the open conversations changed meanwhile.
      const placed = await this.#lanes.run(extended, () => placing.placeExtending(extended, call.messages, target, checkedAt));
      if (placed) return placed;
    }
    return this.#lanes.run(undefined, () => placing.place(call.messages, target));
  }

  /**
   * Stores the answer (when there is one) and ends the turn with its usage. An answer that no longer
   * follows its request (the same request, sent twice at once, was answered and stored first) is
   * not stored: the client's next request carries it, and forks the conversation there.
   * @throws SlidingContextError `STALE_WINDOW` for such an answer; nothing is stored
   */
  finish(placed: PlacedCall, reply: RecordedReply): Promise<void> {
    return this.#lanes.run(placed.conversation.agentId, async () => {
      if (reply.message && !placed.answerFollowsRequest()) {
        throw new SlidingContextError('STALE_WINDOW', 'another answer to the same request was stored first; this one is stored when the client\'s next request carries it (as a fork).');
      }
      if (reply.message) {
        // One transaction stores the answer and the turn's cache figures.
        await placed.conversation.append([reply.message], { endsTurn: { usage: reply.usage } });
        placed.stored(reply.message);
      }
      await placed.conversation.endTurn({ usage: reply.usage });
    });
  }

  /** Waits for the store work queued so far, and writes what requests evicted that waits for a write. */
  async settled(): Promise<void> {
    await this.#lanes.settled();
    // One that cannot be written now (the store failing) stays for the agent's next write: settling does not fail on it.
    for (const registry of this.#registries.values()) await registry.writeEvictionRecords().catch(() => undefined);
  }
}
