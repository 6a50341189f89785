import { describeExchange } from '../exchange/describe-exchange.js';
import { applyEventsTo } from '../message/apply-events.js';
import type { Message, ToolDefinition } from '../message/message.js';
import { parseMessages } from '../message/parse-messages.js';
import { buildRequest, type WireFormat } from '../providers/wire-format.js';
import type { HistoryStore } from '../store/history-store.js';
import { inputTokensFromUsage } from '../tokens/provider-usage.js';
import type { CountableRequest, TokenCount, TokenCounter } from '../tokens/token-counter.js';
import { UsageCalibration } from '../tokens/usage-calibration.js';
import { DEFAULT_BUDGET_TOKENS, validateBudgetTokens } from '../window/budget-tokens.js';
import type { WindowPlan } from '../window/window-plan.js';
import { type PruneResult, WindowState } from '../window/window-state.js';

/** Options of {@link openConversation}. */
export interface OpenConversationOptions {
  readonly store: HistoryStore;
  /** Resume this agent; a new one is created when absent. */
  readonly agentId?: string | undefined;
  readonly provider: string;
  readonly model: string;
  /** A counter for the model, e.g. from `loadTokenCounter`. */
  readonly counter: TokenCounter;
  /** Default: what the agent was created with, else 100,000. 0 disables windowing. */
  readonly budgetTokens?: number | undefined;
  readonly system?: string | undefined;
  readonly tools?: readonly ToolDefinition[] | undefined;
  readonly pinFirstExchange?: boolean | undefined;
  /** The shape of `request()`'s body; by default the provider's own (OpenAI: Chat Completions). */
  readonly format?: WireFormat | undefined;
}

/** An exchange as `history()` shows it. */
export interface ExchangeHistory {
  readonly index: number;
  readonly title: string;
  readonly tools: readonly string[];
  readonly tokens: number;
  readonly inWindow: boolean;
  readonly pinned: boolean;
  readonly firstSeq: number;
  readonly createdAt: Date;
}

const formatOfProvider: Readonly<Record<string, WireFormat>> = { openai: 'openai-chat', anthropic: 'anthropic', google: 'google' };

/** Settings a conversation keeps with its agent, and its forks inherit. */
interface AgentSettings {
  readonly budgetTokens: number;
  readonly pinFirstExchange: boolean;
  readonly system: string | undefined;
}

function settingsFrom(meta: Readonly<Record<string, unknown>>, options: OpenConversationOptions): AgentSettings {
  const stored = (key: string) => meta[key];
  const storedBudget = stored('budgetTokens');
  const storedSystem = stored('system');
  return {
    budgetTokens: validateBudgetTokens(options.budgetTokens ?? (typeof storedBudget === 'number' ? storedBudget : DEFAULT_BUDGET_TOKENS)),
    pinFirstExchange: options.pinFirstExchange ?? stored('pinFirstExchange') === true,
    system: options.system ?? (typeof storedSystem === 'string' ? storedSystem : undefined),
  };
}

/**
 * The object an agent loop holds: it stores every message (before anything is sent), keeps the
 * window in step, builds the provider request within budget, and learns from reported usage.
 * The cutoff is not stored: it is recomputed from the budget and the history, so it is the same
 * after a restart.
 */
export class Conversation {
  readonly agentId: string;
  readonly #options: OpenConversationOptions;
  readonly #settings: AgentSettings;
  #state: WindowState;
  readonly #calibration: UsageCalibration;
  #lastRequest: CountableRequest | undefined;

  private constructor(agentId: string, options: OpenConversationOptions, settings: AgentSettings, history: readonly Message[]) {
    this.agentId = agentId;
    this.#options = options;
    this.#settings = settings;
    this.#state = this.#windowOf(history);
    this.#calibration = new UsageCalibration({ counter: options.counter });
  }

  #windowOf(history: readonly Message[]): WindowState {
    const state = new WindowState({
      counter: this.#options.counter,
      provider: this.#options.provider,
      model: this.#options.model,
      system: this.#settings.system,
      tools: this.#options.tools,
      budgetTokens: this.#settings.budgetTokens,
      pinFirstExchange: this.#settings.pinFirstExchange,
    });
    state.append(history).prune();
    return state;
  }

  /** Opens (or creates) an agent's conversation and replays its history into the window. */
  static async open(options: OpenConversationOptions): Promise<Conversation> {
    const agentId = options.agentId ?? (await options.store.createAgent({
      budgetTokens: options.budgetTokens ?? DEFAULT_BUDGET_TOKENS,
      pinFirstExchange: options.pinFirstExchange === true,
      ...(options.system === undefined ? {} : { system: options.system }),
      ...(options.tools === undefined ? {} : { tools: options.tools }),
    }));
    const settings = settingsFrom(await options.store.agentMeta(agentId), options);
    const history = (await options.store.history(agentId)).map((entry) => entry.message);
    return new Conversation(agentId, options, settings, history);
  }

  /**
   * Stores messages (user input, assistant output, tool results, events) and adds them to the
   * window. A message that would break the conversation is refused before anything is stored.
   */
  async append(messages: readonly Message[]): Promise<void> {
    const valid = parseMessages(messages);
    const tokens = valid.map((message) =>
      message.role === 'event' ? null : this.#options.counter.countMessage({ provider: this.#options.provider, model: this.#options.model, message }).tokens,
    );
    try {
      // The window checks the messages as it takes them; the store writes them only if it did.
      this.#state.append(valid);
      await this.#options.store.append(this.agentId, valid, { tokens });
    } catch (error) {
      // Either failed: the store holds the truth, so the window is rebuilt from it.
      this.#state = this.#windowOf((await this.#options.store.history(this.agentId)).map((entry) => entry.message));
      throw error;
    }
  }

  /**
   * The request to send now, within budget, and its report. Everything appended since the last
   * usage report counts: in a long tool loop, each call is checked before it is made.
   */
  request(): { request: unknown; report: WindowPlan & { readonly calibrated: TokenCount } } {
    this.#state.prune();
    const plan = this.#state.plan();
    const countable: CountableRequest = { system: this.#settings.system, tools: this.#options.tools, messages: plan.messages };
    this.#lastRequest = countable;
    const calibrated = this.#calibration.count({ provider: this.#options.provider, model: this.#options.model, request: countable });
    const format = this.#options.format ?? formatOfProvider[this.#options.provider] ?? 'neutral';
    const request = buildRequest(format, { model: this.#options.model, system: this.#settings.system, tools: this.#options.tools, messages: plan.messages });
    return { request, report: { ...plan, calibrated } };
  }

  /** Ends a turn: prunes the window and, given the provider's usage, calibrates future counts. */
  endTurn(input: { readonly usage?: unknown } = {}): PruneResult {
    const inputTokens = input.usage === undefined ? undefined : inputTokensFromUsage(input.usage);
    if (inputTokens !== undefined && this.#lastRequest) {
      this.#calibration.record({ provider: this.#options.provider, model: this.#options.model, request: this.#lastRequest, inputTokens });
    }
    return this.#state.prune();
  }

  /** Forks a sub-agent that inherits this agent's settings and sees its history so far. */
  async fork(): Promise<Conversation> {
    const child = await this.#options.store.fork(this.agentId, {
      budgetTokens: this.#settings.budgetTokens,
      pinFirstExchange: this.#settings.pinFirstExchange,
      ...(this.#settings.system === undefined ? {} : { system: this.#settings.system }),
    });
    return Conversation.open({ ...this.#options, agentId: child, budgetTokens: this.#settings.budgetTokens });
  }

  /** Clears the window: the model sees nothing from before; the history keeps it all. */
  clear(): Promise<void> {
    return this.append([{ role: 'event', kind: 'clear' }]);
  }

  /** Sets a mark that `rewind` can return to. */
  mark(label: string): Promise<void> {
    return this.append([{ role: 'event', kind: 'mark', label }]);
  }

  /** Returns to a mark: what came after it leaves the window (and stays in the history). */
  async rewind(label: string): Promise<void> {
    await this.append([{ role: 'event', kind: 'rewind', label }]);
  }

  /** The exchanges with their titles, tools, tokens, age and place in or out of the window. */
  async history(): Promise<ExchangeHistory[]> {
    this.#state.prune();
    const plan = this.#state.plan();
    const visible = applyEventsTo(await this.#options.store.history(this.agentId), (entry) => entry.message);
    const messages = visible.flatMap((entry) => (entry.message.role === 'event' ? [] : [entry.message]));
    return plan.exchanges.map((exchange) => {
      const first = visible[exchange.firstMessage];
      const described = describeExchange(messages, exchange.firstMessage, exchange.lastMessage);
      return {
        index: exchange.index,
        title: described.title,
        tools: [...described.tools.keys()],
        tokens: exchange.tokens,
        inWindow: exchange.inWindow,
        pinned: exchange.pinned,
        firstSeq: first?.seq ?? 0,
        createdAt: first?.createdAt ?? new Date(0),
      };
    });
  }
}

/** Opens (or creates) an agent's conversation; see {@link Conversation}. */
export function openConversation(options: OpenConversationOptions): Promise<Conversation> {
  return Conversation.open(options);
}
