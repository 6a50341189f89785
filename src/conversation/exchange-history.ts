import { summaryMessage } from '../condense/stored-summary.js';
import { describeExchange } from '../exchange/describe-exchange.js';
import { detectExchanges, startsExchange } from '../exchange/detect-exchanges.js';
import { requireValidConversation } from '../exchange/require-valid-conversation.js';
import { replayEvents } from '../message/apply-events.js';
import type { ModelMessage, ToolDefinition } from '../message/message.js';
import type { ConversationStore, MessageOutline, MessagePosition, StoredMessage } from './conversation-store.js';
import { storedCountCounter } from '../tokens/stored-count-counter.js';
import { countTargetKey, type TokenCount, type TokenCounter } from '../tokens/token-counter.js';
import { activeSummary, type StoredSummary } from './active-summary.js';
import { type HistoryOutline, readHistoryOutline } from './history-outline.js';
import type { LossRecord } from './loss-records.js';
import { ExtendingWindowPlanner } from '../window/extending-window-planner.js';
import { ExtendingConversationCheck } from '../exchange/extending-conversation-check.js';
import { planWindow } from '../window/plan-window.js';
import { type TurnCacheUsage, withCacheUsage } from './prompt-cache.js';
import { DEFAULT_WINDOW_POLICY, pinsFirstExchange, type WindowPolicy } from '../window/window-policy.js';
import { indexOfPosition, keptCutPosition } from './kept-cut.js';
import type { WindowPlan } from '../window/window-plan.js';
import { type StoredSyntheticResult, storedSyntheticResultCounter } from './synthetic-result-counts.js';
import { placePins } from './pinned-messages.js';
import { heldCounts, heldSkeletonOf, type KnownCounts, skeletonOf } from './outline-stand-ins.js';

/** An exchange as the `/history` view shows it. */
export interface ExchangeHistory {
  readonly index: number;
  readonly title: string;
  readonly tools: readonly string[];
  /** How often each tool was called, by name, in first-use order. */
  readonly toolCalls?: Readonly<Record<string, number>> | undefined;
  readonly tokens: number;
  readonly inWindow: boolean;
  readonly pinned: boolean;
  /** Where its first message is stored: the agent (this one or an ancestor) and seq. */
  readonly agentId: string;
  readonly firstSeq: number;
  readonly createdAt: Date;
  /** True when the summary in force stands for this exchange (so it is out of the window). */
  readonly summarized: boolean;
  /** What the provider's prompt cache did for its turns, as their usage reported it (when recorded). */
  readonly cache?: TurnCacheUsage | undefined;
}

/** A message's place in the visible history, for the view. */
interface Placed {
  readonly agentId: string;
  readonly seq: number;
  readonly createdAt: Date;
}

/** What {@link planStoredHistory} needs: the agent, the model and budget, and a counter on demand. */
export interface StoredHistoryOptions {
  readonly store: ConversationStore;
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
  /** Stored counts of the synthetic results for calls left unanswered (see `syntheticResultCountsMeta`). */
  readonly syntheticResults?: readonly StoredSyntheticResult[] | undefined;
  /** Called only when some count is not stored for this model. */
  readonly loadCounter: () => Promise<TokenCounter>;
  /** Held from one plan of the agent to the next, so that a history that grew is planned from what was added. */
  readonly planner?: HeldPlanning | undefined;
}

/**
 * What a view holds from one plan of an agent's history to the next: the window planner and the
 * checks of the outline and of the messages planned, each of which works on what was added when
 * the history only grew. The plans are exactly those made without it.
 */
export interface HeldPlanning {
  readonly window: ExtendingWindowPlanner;
  readonly outline: ExtendingConversationCheck;
  readonly planned: ExtendingConversationCheck;
}

/** A new {@link HeldPlanning}, holding nothing yet. */
export function newHeldPlanning(): HeldPlanning {
  return { window: new ExtendingWindowPlanner(), outline: new ExtendingConversationCheck(), planned: new ExtendingConversationCheck() };
}

/** {@link StoredHistoryOptions} without the store: what planning from an outline needs. */
export type OutlinePlanOptions = Omit<StoredHistoryOptions, 'store' | 'agentId'> & {
  /** Where a `cache-aware` window's cut was kept (see `keptCutPosition`). */
  readonly keptCut?: MessagePosition | undefined;
  /**
   * Messages read whole, by {@link positionKey}, planned in place of their stand-ins (not with a
   * held planner): the plan is the same, and its messages are these where it sends them.
   */
  readonly bodies?: ReadonlyMap<string, ModelMessage> | undefined;
};

/** The key of a stored message's place in {@link OutlinePlanOptions.bodies}. */
export const positionKey = (position: MessagePosition): string => `${position.agentId}:${position.seq}`;

/** A pinned message as the history view shows it: where it is stored and where the window sends it. */
export interface PinHistory {
  /** Where the pinned message is stored: the agent (this one or an ancestor) and its seq. */
  readonly message: MessagePosition;
  /** `in-place` in its exchange, `hoisted` after the preamble (its exchange evicted or summarized). */
  readonly placement: 'in-place' | 'hoisted';
  /** Tokens it takes in the request as placed. */
  readonly tokens: number;
}

/** A planned history: the plan, every exchange, the pins, and the summary in force. */
export interface PlannedHistory {
  readonly plan: WindowPlan;
  readonly exchanges: ExchangeHistory[];
  /** The pinned messages, in order (none when absent). */
  readonly pins?: readonly PinHistory[] | undefined;
  readonly summary: StoredSummary | undefined;
  /** The session's cache figures: every recorded turn's, added up (when any were recorded). */
  readonly cache?: TurnCacheUsage | undefined;
  /** What each summary and eviction left out of the model's view, oldest first (when any was recorded). */
  readonly losses?: readonly LossRecord[] | undefined;
}

/**
 * Plans the window over an agent's whole visible history, as the `/history` view shows it. The
 * counts stored with the messages are used when they were made for this model, so a history
 * counted when it was written is planned without loading a tokenizer; the cutoff is the one a
 * conversation computes from the same budget and messages.
 */
export async function planStoredHistory(options: StoredHistoryOptions): Promise<PlannedHistory & { messages: ModelMessage[] }> {
  const replayed = replayEvents(await options.store.history(options.agentId), (entry) => entry.message);
  const visible = replayed.visible;
  const pinned = replayed.pins.map((index) => visible[index] as StoredMessage);
  const messages = visible.map((entry) => entry.message as ModelMessage);
  const target = countTargetKey(options);
  const known = new Map<ModelMessage, TokenCount>();
  for (const [index, entry] of visible.entries()) {
    if (entry.count?.target === target) known.set(messages[index] as ModelMessage, entry.count);
  }
  // Synthetic results for unanswered calls are counted when the plan is made, from stored counts if kept.
  const needsCounter = known.size < messages.length || options.preambleCount === undefined;
  const summary = await activeSummary(options.store, options.agentId);
  const keptCut = await keptCutPosition(options.store, options.agentId, options.policy ?? DEFAULT_WINDOW_POLICY);
  return { ...(await planAroundSummary({ ...options, keptCut }, summary, messages, visible, known, needsCounter, pinned)), messages };
}

/**
 * Plans as a conversation does with the summary in force: the summary pinned after the leading
 * system messages (and before a pinned first exchange), the exchanges it covers out of the
 * window and marked `summarized`, everything after them planned as usual.
 */
async function planAroundSummary(
  options: OutlinePlanOptions,
  summary: StoredSummary | undefined,
  messages: readonly ModelMessage[],
  positions: readonly Placed[],
  known: KnownCounts,
  needsCounter: boolean,
  pinned: readonly StoredMessage[] = [],
): Promise<PlannedHistory> {
  const isEnd = (position: Placed) => position.agentId === summary?.last.agentId && position.seq === summary.last.seq;
  const found = summary ? positions.findIndex(isEnd) : -1;
  // A summary never stands for the latest exchange: with no exchange after it, it is set aside.
  const end = found !== -1 && messages.slice(found + 1).some((message) => startsExchange(message)) ? found : -1;
  // Without a summary in force nothing is covered, and the plan is over every message.
  let planned = messages;
  let placed: readonly (Placed | undefined)[] = positions;
  let coveredFrom = 0;
  let coveredMessages: readonly ModelMessage[] = [];
  let summaryAt = -1;
  let pinnedCount = 0;
  let countsKnown = !needsCounter;
  if (summary && end !== -1) {
    const first = detectExchanges(messages)[0];
    const lead = first?.firstMessage ?? messages.length;
    summaryAt = lead;
    coveredFrom = pinsFirstExchange(options.policy ?? DEFAULT_WINDOW_POLICY, options.pinFirstExchange) && first ? first.lastMessage + 1 : lead;
    pinnedCount = coveredFrom > lead ? 1 : 0;
    coveredMessages = messages.slice(coveredFrom, end + 1);
    const pinnedSummary = summaryMessage(summary.data.text);
    if (summary.data.countTarget === countTargetKey(options) && typeof summary.data.tokens === 'number') {
      // A summary recorded before its count's method was kept is called an estimate.
      const { countExact, countMethod } = summary.data;
      const made = typeof countMethod === 'string' ? { exact: countExact === true, method: countMethod } : { exact: false, method: 'stored summary count' };
      known.set(pinnedSummary, { tokens: summary.data.tokens, ...made });
    } else countsKnown = false;
    planned = [...messages.slice(0, lead), pinnedSummary, ...messages.slice(lead, coveredFrom), ...messages.slice(end + 1)];
    const summaryPlace = { agentId: summary.last.agentId, seq: 0, createdAt: summary.createdAt };
    placed = [...positions.slice(0, lead), summaryPlace, ...positions.slice(lead, coveredFrom), ...positions.slice(end + 1)];
  }
  // Pins the summary covers are hoisted after it; the others are pinned where they are.
  const withPins = placePins(planned, placed, pinned, summaryAt);
  planned = withPins.messages;
  placed = withPins.positions;
  if (withPins.pins.length > 0) countsKnown = false;
  const pinIndexes = withPins.pins.map((pin) => pin.index);
  // A held planner extends a window without pins; with pins the window is planned whole.
  const planner = pinIndexes.length === 0 ? options.planner : undefined;
  // With every other count known, the synthetic results' stored counts may spare the tokenizer.
  // A held planner appends message by message, counting on the way the results calls lack
  // until they come: those are provisional (see storedSyntheticResultCounter).
  // A cleared tool output's placeholder is a message no count is stored for: the policy that makes one needs the counter.
  const clearsOutputs = (options.policy ?? DEFAULT_WINDOW_POLICY).name === 'clear-tool-outputs';
  const synthetic = countsKnown && !clearsOutputs
    ? storedSyntheticResultCounter(planned, options.syntheticResults ?? [], options.planner?.planned, planner !== undefined)
    : undefined;
  const counter = storedCountCounter({ messages: known, preamble: options.preambleCount, fallback: synthetic ?? (await options.loadCounter()) });
  const cutAt = options.keptCut ? indexOfPosition(placed, options.keptCut) : -1;
  // A cache-aware window with no cut kept has its cut at the start: the plan reports it kept or moved from there.
  const keepsCut = (options.policy ?? DEFAULT_WINDOW_POLICY).name === 'cache-aware';
  const previousCutoff = cutAt !== -1 ? cutAt + 1 : keepsCut ? 0 : undefined;
  const windowOptions = { ...options, messages: planned, counter, previousCutoff, pins: pinIndexes };
  const plan = planner ? planner.window.plan(windowOptions) : planWindow(windowOptions);
  const kept = describeExchanges(plan, planned, placed, planner !== undefined);
  const covered = detectExchanges(coveredMessages).map((exchange) => {
    const described = describeExchange(coveredMessages, exchange.firstMessage, exchange.lastMessage);
    const first = positions[coveredFrom + exchange.firstMessage];
    const tokens = coveredMessages
      .slice(exchange.firstMessage, exchange.lastMessage + 1)
      .reduce((sum, message) => sum + counter.countMessage({ ...options, message }).tokens, 0);
    const where = { agentId: first?.agentId ?? '', firstSeq: first?.seq ?? 0, createdAt: first?.createdAt ?? new Date(0) };
    const tools = { tools: [...described.tools.keys()], toolCalls: Object.fromEntries(described.tools) };
    return { index: 0, title: described.title, ...tools, tokens, inWindow: false, pinned: false, ...where, summarized: true };
  });
  const exchanges = [...kept.slice(0, pinnedCount), ...covered, ...kept.slice(pinnedCount)].map((exchange, index) => ({ ...exchange, index }));
  const pinAt = new Map(withPins.pins.map((pin) => [pin.index, pin.at]));
  const pins = plan.pins.map((pin) => ({ message: pinAt.get(pin.message) ?? { agentId: '', seq: 0 }, placement: pin.placement, tokens: pin.tokens }));
  return { plan, exchanges, ...(pins.length > 0 ? { pins } : {}), summary: end === -1 ? undefined : summary };
}

/**
 * Plans the `/history` view of an agent: the same plan and exchanges as
 * {@link planStoredHistory}, drawn from its outline (read now unless given) without reading
 * message bodies when it can be; otherwise from the bodies. Drawn from the outline, the plan's
 * messages are stand-ins (role, tool ids, title) unless `wholeMessages` asks for them whole.
 */
export async function planHistoryView(
  options: StoredHistoryOptions & { readonly outline?: HistoryOutline | undefined; readonly wholeMessages?: boolean | undefined },
): Promise<PlannedHistory> {
  const policy = options.policy ?? DEFAULT_WINDOW_POLICY;
  const keptCut = await keptCutPosition(options.store, options.agentId, policy);
  const outline = options.outline ?? (await readHistoryOutline(options.store, options.agentId));
  const planned = await planOutlinedHistory(outline, { ...options, keptCut });
  if (planned && options.wholeMessages !== true) return planned;
  if (planned) {
    // The window's messages are read back, the newest exchanges its tokens reach, and planned in
    // place of their stand-ins; the rest of the view stays as the outline planned it.
    const withFirstExchange = pinsFirstExchange(policy, options.pinFirstExchange);
    const read = await options.store.windowTail(options.agentId, { minTokens: planned.plan.totalTokens + 1, withFirstExchange, after: planned.summary?.last });
    const bodies = new Map([...read.head, ...read.tail].map((entry) => [positionKey(entry), entry.message as ModelMessage]));
    const whole = await planOutlinedHistory(outline, { ...options, planner: undefined, keptCut, bodies });
    if (whole) return { ...planned, plan: { ...planned.plan, messages: whole.plan.messages } };
  }
  // Read from the bodies, the messages are new objects each time: a held planner would only compare them.
  const { plan, exchanges, summary, pins } = await planStoredHistory({ ...options, planner: undefined });
  return withLosses(withCacheUsage({ plan, exchanges, summary, ...(pins ? { pins } : {}) }, outline.cacheUsage), outline);
}

/**
 * Plans the `/history` view from an outline alone (role, stored count, title, tool calls and
 * results of each message): the same plan as {@link planStoredHistory} when every count is
 * stored for this model and the tool calls and results pair up (a call left unanswered loads
 * the model's counter, unless its synthetic result's count is stored) and nothing is pinned;
 * otherwise undefined, and the bodies must be read.
 */
export async function planOutlinedHistory(outline: HistoryOutline, options: OutlinePlanOptions): Promise<PlannedHistory | undefined> {
  const target = countTargetKey(options);
  if (options.preambleCount === undefined || !outline.messages.every((entry) => entry.count?.target === target)) return undefined;
  // A pin is sent as its text, and a cleared tool output is chosen by its size: the bodies must be read.
  if (outline.pinned === true || (options.policy ?? DEFAULT_WINDOW_POLICY).name === 'clear-tool-outputs') return undefined;
  const held = options.planner !== undefined;
  const { bodies } = options;
  const standIns = new Set<ModelMessage>();
  const standInOf = (entry: MessageOutline) => {
    const skeleton = skeletonOf(entry);
    standIns.add(skeleton);
    return skeleton;
  };
  const messages = held
    ? outline.messages.map(heldSkeletonOf)
    : bodies ? outline.messages.map((entry) => bodies.get(positionKey(entry)) ?? standInOf(entry)) : outline.messages.map(skeletonOf);
  if (!pairsUp(messages, options.planner?.outline)) return undefined;
  // Held, each skeleton's count is kept with it: no map of every message is made again for each plan.
  const known: KnownCounts = held ? heldCounts() : new Map(messages.map((message, index) => [message, outline.messages[index]?.count as TokenCount]));
  // The aborted results planning adds for unanswered calls are built from the calls' ids and
  // names alone, so they are counted from the skeletons as from the bodies.
  const keepsCut = (options.policy ?? DEFAULT_WINDOW_POLICY).name === 'cache-aware';
  const keptCut = options.keptCut ?? (keepsCut ? outline.keptCut : undefined);
  const planned = await planAroundSummary({ ...options, keptCut }, outline.summary, messages, outline.messages, known, false);
  // Asked for the messages whole, a plan that sends a stand-in is not the plan asked for.
  if (bodies && planned.plan.messages.some((message) => standIns.has(message))) return undefined;
  return withLosses(withCacheUsage(planned, outline.cacheUsage), outline);
}

function withLosses(planned: PlannedHistory, outline: HistoryOutline): PlannedHistory {
  return outline.losses ? { ...planned, losses: outline.losses } : planned;
}

/** Whether the tool calls and results pair up (calls left unanswered allowed); through `check` when one is held. */
function pairsUp(messages: readonly ModelMessage[], check: ExtendingConversationCheck | undefined): boolean {
  try {
    if (check) check.check(messages);
    else requireValidConversation(messages);
    return true;
  } catch {
    // The bodies are read instead, and the error names the exact part.
    return false;
  }
}

/** The plan's exchanges as the history view shows them; `positions` run parallel to `messages`; `held`: described once each (see {@link describedOnce}). */
function describeExchanges(
  plan: WindowPlan,
  messages: readonly ModelMessage[],
  positions: readonly (Placed | undefined)[],
  held: boolean,
): ExchangeHistory[] {
  const describe = held ? describedOnce : describedNow;
  return plan.exchanges.map((exchange) => {
    const first = positions[exchange.firstMessage];
    return {
      index: exchange.index,
      ...describe(messages, exchange.firstMessage, exchange.lastMessage),
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

/** An exchange's title and tools as the view shows them, by the messages it spans. */
interface Described {
  readonly title: string;
  readonly tools: readonly string[];
  readonly toolCalls: Readonly<Record<string, number>>;
}

/** Each exchange described, by its first message: kept with its last message and length, which name the same messages. */
const described = new WeakMap<ModelMessage, { readonly last: ModelMessage | undefined; readonly span: number; readonly described: Described }>();

/**
 * `messages[firstMessage..lastMessage]` described: made once for the same messages, so that a
 * held history that grew describes only its new exchanges (and the one that grew) again.
 */
function describedOnce(messages: readonly ModelMessage[], firstMessage: number, lastMessage: number): Described {
  const first = messages[firstMessage] as ModelMessage;
  const last = messages[lastMessage];
  const span = lastMessage - firstMessage;
  const kept = described.get(first);
  if (kept && kept.last === last && kept.span === span) return kept.described;
  const made = describedNow(messages, firstMessage, lastMessage);
  described.set(first, { last, span, described: made });
  return made;
}

function describedNow(messages: readonly ModelMessage[], firstMessage: number, lastMessage: number): Described {
  const { title, tools } = describeExchange(messages, firstMessage, lastMessage);
  return { title, tools: [...tools.keys()], toolCalls: Object.fromEntries(tools) };
}
