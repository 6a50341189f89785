import { TokenCounterCache } from '../../tokens/token-counter-cache.js';
import { type Conversation, type ConversationEvent, openConversation } from '../../conversation/conversation.js';
import type { ToolDefinition } from '../../message/message.js';
import type { IntegrationOptions } from '../integration-options.js';
import { defaultDataDir } from '../../store/default-data-dir.js';
import { HistoryStore } from '../../store/history-store.js';
import { parseAgentId } from '../../store/agent-id.js';
import type { CountTarget } from '../../tokens/token-counter.js';

export type { IntegrationOptions } from '../integration-options.js';

/** One conversation as the integration holds it: the ids it has stored, and a queue so that its steps never interleave. */
export interface HeldConversation {
  readonly conversation: Conversation;
  /** Ids of messages stored, or in the window when it was opened. */
  readonly storedIds: Set<string>;
  /** Events since they were last taken. */
  readonly events: ConversationEvent[];
  /** Runs `step` after every step queued before it on this conversation. */
  readonly serially: <T>(step: () => Promise<T>) => Promise<T>;
}

/** What a conversation is opened with: the model the counts are for, and the agent's system prompt and tools. */
export interface OpenFor {
  readonly target: CountTarget;
  readonly system: string | undefined;
  readonly tools: readonly ToolDefinition[];
}

/**
 * The conversations of one integration instance, by key (a thread or conversation id; the empty
 * key for calls that name none, one new agent per instance). A key that is an agent id opens
 * that agent; any other key names an agent, created with that name the first time.
 */
export class IntegrationConversations {
  readonly #options: IntegrationOptions;
  #store: Promise<HistoryStore> | undefined;
  readonly #counters = new TokenCounterCache();
  readonly #held = new Map<string, Promise<HeldConversation>>();

  constructor(options: IntegrationOptions) {
    this.#options = options;
  }

  /** The store: the one given, else the PGlite directory opened on first use. */
  store(): Promise<HistoryStore> {
    if (this.#options.store) return Promise.resolve(this.#options.store);
    this.#store ??= HistoryStore.open({ dataDir: this.#options.dataDir ?? (process.env.SLIDING_CONTEXT_DATA_DIR || defaultDataDir(process.env)) });
    return this.#store;
  }

  /** The conversation for `key`, opened on first use. */
  held(key: string, openFor: OpenFor): Promise<HeldConversation> {
    let held = this.#held.get(key);
    if (!held) {
      held = this.#open(key, openFor);
      // A failed open is tried again on the next call.
      held.catch(() => this.#held.delete(key));
      this.#held.set(key, held);
    }
    return held;
  }

  /** The conversation for `key` when a call opened it. */
  opened(key: string): Promise<HeldConversation> | undefined {
    return this.#held.get(key);
  }

  async #open(key: string, openFor: OpenFor): Promise<HeldConversation> {
    const store = await this.store();
    const agentId = key === '' ? undefined : await findAgent(store, key);
    const conversation = await openConversation({
      store,
      ...(agentId === undefined ? {} : { agentId }),
      ...openFor.target,
      counter: await this.#counters.counterFor(openFor.target),
      system: openFor.system,
      tools: openFor.tools,
      ...(this.#options.budgetTokens === undefined ? { modelBudget: true } : { budgetTokens: this.#options.budgetTokens }),
      policy: this.#options.policy,
      condense: this.#options.condense,
      meta: { integration: 'langchain' },
    });
    if (agentId === undefined && key !== '') await store.renameAgent(conversation.agentId, key);
    const events: ConversationEvent[] = [];
    conversation.on((event) => events.push(event));
    // The newest stored message is always in the window: the messages a call sends after it are new.
    const { report } = await conversation.request();
    const storedIds = new Set(report.messages.flatMap((message) => (message.id === undefined ? [] : [message.id])));
    let queue: Promise<unknown> = Promise.resolve();
    const serially = <T>(step: () => Promise<T>): Promise<T> => {
      const run = queue.then(step, step);
      queue = run.catch(() => undefined);
      return run;
    };
    return { conversation, storedIds, events, serially };
  }

  /** Closes the store when this instance opened it. */
  async close(): Promise<void> {
    const opened = this.#store;
    this.#store = undefined;
    this.#held.clear();
    if (opened) await (await opened).close();
  }
}

/** The agent a key names: the stored agent of that id, else the most recently active root agent of that name. */
async function findAgent(store: HistoryStore, key: string): Promise<string | undefined> {
  try {
    parseAgentId(key);
    await store.agentMeta(key);
    return key;
  } catch {
    // Not the id of a stored agent: a name.
  }
  let found: { agentId: string; lastActivity: Date } | undefined;
  for (const agent of await store.listAgents()) {
    if (agent.name !== key || agent.parentId !== null) continue;
    if (!found || agent.lastActivity > found.lastActivity) found = agent;
  }
  return found?.agentId;
}
