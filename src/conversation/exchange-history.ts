import { describeExchange } from '../exchange/describe-exchange.js';
import { requireValidConversation } from '../exchange/require-valid-conversation.js';
import { applyEventsTo } from '../message/apply-events.js';
import type { ModelMessage, ToolDefinition } from '../message/message.js';
import { countTargetKey, type HistoryStore, type MessageOutline } from '../store/history-store.js';
import { storedCountCounter } from '../tokens/stored-count-counter.js';
import type { TokenCount, TokenCounter } from '../tokens/token-counter.js';
import { planWindow } from '../window/plan-window.js';
import type { WindowPlan } from '../window/window-plan.js';

/** An exchange as the `/history` view shows it. */
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

/** What {@link planStoredHistory} needs: the agent, the model and budget, and a counter on demand. */
export interface StoredHistoryOptions {
  readonly store: HistoryStore;
  readonly agentId: string;
  readonly provider: string;
  readonly model: string;
  readonly budgetTokens: number;
  readonly system?: string | undefined;
  readonly tools?: readonly ToolDefinition[] | undefined;
  readonly pinFirstExchange?: boolean | undefined;
  /** The preamble's count, when it is known without a counter. */
  readonly preambleCount?: TokenCount | undefined;
  /** Called only when some count is not stored for this model. */
  readonly loadCounter: () => Promise<TokenCounter>;
}

/**
 * Plans the window over an agent's whole visible history, as the `/history` view shows it. The
 * counts stored with the messages are used when they were made for this model, so a history
 * counted when it was written is planned without loading a tokenizer; the cutoff is the one a
 * conversation computes from the same budget and messages.
 */
export async function planStoredHistory(options: StoredHistoryOptions): Promise<{ plan: WindowPlan; exchanges: ExchangeHistory[]; messages: ModelMessage[] }> {
  const visible = applyEventsTo(await options.store.history(options.agentId), (entry) => entry.message);
  const messages = visible.map((entry) => entry.message as ModelMessage);
  const target = countTargetKey(options);
  const known = new Map<ModelMessage, TokenCount>();
  for (const [index, entry] of visible.entries()) {
    if (entry.count?.target === target) known.set(messages[index] as ModelMessage, entry.count);
  }
  // Synthetic results for unanswered calls are counted when the plan is made.
  const needsCounter = known.size < messages.length || options.preambleCount === undefined || requireValidConversation(messages).length > 0;
  const counter = storedCountCounter({ messages: known, preamble: options.preambleCount, fallback: needsCounter ? await options.loadCounter() : undefined });
  const plan = planWindow({ ...options, messages, counter });
  return { plan, exchanges: describeExchanges(plan, messages, visible), messages };
}

/**
 * Plans the `/history` view of an agent: the same plan and exchanges as
 * {@link planStoredHistory}, drawn from the store's outline of each message (role, stored count,
 * title, tool calls and results) without reading message bodies when every count is stored for
 * this model and every tool call is answered. Otherwise it reads the bodies.
 */
export async function planHistoryView(options: StoredHistoryOptions): Promise<{ plan: WindowPlan; exchanges: ExchangeHistory[] }> {
  const target = countTargetKey(options);
  const outline = await options.store.outline(options.agentId);
  if (options.preambleCount !== undefined && outline.every((entry) => entry.count?.target === target)) {
    const messages = outline.map(skeletonOf);
    if (answersEveryCall(messages)) {
      const known = new Map(messages.map((message, index) => [message, outline[index]?.count as TokenCount]));
      const plan = planWindow({ ...options, messages, counter: storedCountCounter({ messages: known, preamble: options.preambleCount }) });
      return { plan, exchanges: describeExchanges(plan, messages, outline) };
    }
  }
  const { plan, exchanges } = await planStoredHistory(options);
  return { plan, exchanges };
}

/**
 * A stand-in for an outlined message with what planning reads: its role, its tool calls and
 * results with their ids, and an exchange start's title as its text. Planned with the stored
 * counts, it gives the same window as the message itself.
 */
function skeletonOf(entry: MessageOutline): ModelMessage {
  const calls = entry.toolParts
    .filter((part) => part.type === 'tool-call')
    .map((part) => ({ type: 'tool-call' as const, toolCallId: part.toolCallId, toolName: part.toolName, input: {} }));
  const results = entry.toolParts
    .filter((part) => part.type === 'tool-result')
    .map((part) => ({ type: 'tool-result' as const, toolCallId: part.toolCallId, toolName: part.toolName, output: { type: 'text' as const, value: '' } }));
  switch (entry.role) {
    case 'system':
      return { role: 'system', content: '' };
    case 'user':
      return { role: 'user', content: results.length > 0 ? results : (entry.title ?? '') };
    case 'assistant':
      return { role: 'assistant', content: calls };
    case 'tool':
      return { role: 'tool', content: results };
  }
}

/** True when the messages pair up with no call left unanswered; false for any problem at all. */
function answersEveryCall(messages: readonly ModelMessage[]): boolean {
  try {
    return requireValidConversation(messages).length === 0;
  } catch {
    // The bodies are read instead, and the error names the exact part.
    return false;
  }
}

/** The plan's exchanges as the history view shows them; `positions` run parallel to `messages`. */
function describeExchanges(
  plan: WindowPlan,
  messages: readonly ModelMessage[],
  positions: readonly { readonly seq: number; readonly createdAt: Date }[],
): ExchangeHistory[] {
  return plan.exchanges.map((exchange) => {
    const first = positions[exchange.firstMessage];
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
