import { activeSummary, type StoredSummary, summaryMessage } from '../condense/stored-summary.js';
import { describeExchange } from '../exchange/describe-exchange.js';
import { detectExchanges, startsExchange } from '../exchange/detect-exchanges.js';
import { requireValidConversation } from '../exchange/require-valid-conversation.js';
import { applyEventsTo } from '../message/apply-events.js';
import type { ModelMessage, ToolDefinition } from '../message/message.js';
import { countTargetKey, type HistoryStore, type MessageOutline } from '../store/history-store.js';
import { storedCountCounter } from '../tokens/stored-count-counter.js';
import type { TokenCount, TokenCounter } from '../tokens/token-counter.js';
import { planWindow } from '../window/plan-window.js';
import { pinsFirstExchange, type WindowPolicy } from '../window/window-policy.js';
import type { WindowPlan } from '../window/window-plan.js';

/** An exchange as the `/history` view shows it. */
export interface ExchangeHistory {
  readonly index: number;
  readonly title: string;
  readonly tools: readonly string[];
  readonly tokens: number;
  readonly inWindow: boolean;
  readonly pinned: boolean;
  /** Where its first message is stored: the agent (this one or an ancestor) and seq. */
  readonly agentId: string;
  readonly firstSeq: number;
  readonly createdAt: Date;
  /** True when the summary in force stands for this exchange (so it is out of the window). */
  readonly summarized: boolean;
}

/** A message's place in the visible history, for the view. */
interface Placed {
  readonly agentId: string;
  readonly seq: number;
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
  readonly policy?: WindowPolicy | undefined;
  /** The preamble's count, when it is known without a counter. */
  readonly preambleCount?: TokenCount | undefined;
  /** Called only when some count is not stored for this model. */
  readonly loadCounter: () => Promise<TokenCounter>;
}

/** A planned history: the plan, every exchange, and the summary in force. */
export interface PlannedHistory {
  readonly plan: WindowPlan;
  readonly exchanges: ExchangeHistory[];
  readonly summary: StoredSummary | undefined;
}

/**
 * Plans the window over an agent's whole visible history, as the `/history` view shows it. The
 * counts stored with the messages are used when they were made for this model, so a history
 * counted when it was written is planned without loading a tokenizer; the cutoff is the one a
 * conversation computes from the same budget and messages.
 */
export async function planStoredHistory(options: StoredHistoryOptions): Promise<PlannedHistory & { messages: ModelMessage[] }> {
  const visible = applyEventsTo(await options.store.history(options.agentId), (entry) => entry.message);
  const messages = visible.map((entry) => entry.message as ModelMessage);
  const target = countTargetKey(options);
  const known = new Map<ModelMessage, TokenCount>();
  for (const [index, entry] of visible.entries()) {
    if (entry.count?.target === target) known.set(messages[index] as ModelMessage, entry.count);
  }
  // Synthetic results for unanswered calls are counted when the plan is made.
  const needsCounter = known.size < messages.length || options.preambleCount === undefined || requireValidConversation(messages).length > 0;
  return { ...(await planAroundSummary(options, messages, visible, known, needsCounter)), messages };
}

/**
 * Plans as a conversation does with the summary in force: the summary pinned after the leading
 * system messages (and before a pinned first exchange), the exchanges it covers out of the
 * window and marked `summarized`, everything after them planned as usual.
 */
async function planAroundSummary(
  options: StoredHistoryOptions,
  messages: readonly ModelMessage[],
  positions: readonly Placed[],
  known: Map<ModelMessage, TokenCount>,
  needsCounter: boolean,
): Promise<PlannedHistory> {
  const summary = await activeSummary(options.store, options.agentId);
  const isEnd = (position: Placed) => position.agentId === summary?.last.agentId && position.seq === summary.last.seq;
  const found = summary ? positions.findIndex(isEnd) : -1;
  // A summary never stands for the latest exchange: with no exchange after it, it is set aside.
  const end = found !== -1 && messages.slice(found + 1).some((message) => startsExchange(message)) ? found : -1;
  // Without a summary in force nothing is covered, and the plan is over every message.
  let planned = messages;
  let placed = positions;
  let coveredFrom = 0;
  let coveredMessages: readonly ModelMessage[] = [];
  let pinnedCount = 0;
  let countsKnown = !needsCounter;
  if (summary && end !== -1) {
    const first = detectExchanges(messages)[0];
    const lead = first?.firstMessage ?? messages.length;
    coveredFrom = pinsFirstExchange(options.policy ?? { name: 'budget' }, options.pinFirstExchange) && first ? first.lastMessage + 1 : lead;
    pinnedCount = coveredFrom > lead ? 1 : 0;
    coveredMessages = messages.slice(coveredFrom, end + 1);
    const pinnedSummary = summaryMessage(summary.data.text);
    if (summary.data.countTarget === countTargetKey(options) && typeof summary.data.tokens === 'number') {
      known.set(pinnedSummary, { tokens: summary.data.tokens, exact: false, method: 'stored summary count' });
    } else countsKnown = false;
    planned = [...messages.slice(0, lead), pinnedSummary, ...messages.slice(lead, coveredFrom), ...messages.slice(end + 1)];
    const summaryPlace = { agentId: summary.last.agentId, seq: 0, createdAt: summary.createdAt };
    placed = [...positions.slice(0, lead), summaryPlace, ...positions.slice(lead, coveredFrom), ...positions.slice(end + 1)];
  }
  const counter = storedCountCounter({ messages: known, preamble: options.preambleCount, fallback: countsKnown ? undefined : await options.loadCounter() });
  const plan = planWindow({ ...options, messages: planned, counter });
  const kept = describeExchanges(plan, planned, placed);
  const covered = detectExchanges(coveredMessages).map((exchange) => {
    const described = describeExchange(coveredMessages, exchange.firstMessage, exchange.lastMessage);
    const first = positions[coveredFrom + exchange.firstMessage];
    const tokens = coveredMessages
      .slice(exchange.firstMessage, exchange.lastMessage + 1)
      .reduce((sum, message) => sum + counter.countMessage({ ...options, message }).tokens, 0);
    const where = { agentId: first?.agentId ?? '', firstSeq: first?.seq ?? 0, createdAt: first?.createdAt ?? new Date(0) };
    return { index: 0, title: described.title, tools: [...described.tools.keys()], tokens, inWindow: false, pinned: false, ...where, summarized: true };
  });
  const exchanges = [...kept.slice(0, pinnedCount), ...covered, ...kept.slice(pinnedCount)].map((exchange, index) => ({ ...exchange, index }));
  return { plan, exchanges, summary: end === -1 ? undefined : summary };
}

/**
 * Plans the `/history` view of an agent: the same plan and exchanges as
 * {@link planStoredHistory}, drawn from the store's outline of each message (role, stored count,
 * title, tool calls and results) without reading message bodies when every count is stored for
 * this model and every tool call is answered. Otherwise it reads the bodies.
 */
export async function planHistoryView(options: StoredHistoryOptions): Promise<PlannedHistory> {
  const target = countTargetKey(options);
  const outline = await options.store.outline(options.agentId);
  if (options.preambleCount !== undefined && outline.every((entry) => entry.count?.target === target)) {
    const messages = outline.map(skeletonOf);
    if (answersEveryCall(messages)) {
      const known = new Map(messages.map((message, index) => [message, outline[index]?.count as TokenCount]));
      return planAroundSummary(options, messages, outline, known, false);
    }
  }
  const { plan, exchanges, summary } = await planStoredHistory(options);
  return { plan, exchanges, summary };
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
  positions: readonly Placed[],
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
      agentId: first?.agentId ?? '',
      firstSeq: first?.seq ?? 0,
      createdAt: first?.createdAt ?? new Date(0),
      summarized: false,
    };
  });
}
