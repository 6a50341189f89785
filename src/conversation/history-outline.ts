import { z } from 'zod';
import type { ConversationStore, MessageOutline, MessagePosition, OutlinedToolPart, OwnRowsRead } from './conversation-store.js';
import { keptCutPosition } from './kept-cut.js';
import { activeSummary, type StoredSummary } from './active-summary.js';
import { type RecordedCacheUsage, readCacheUsage } from './prompt-cache.js';
import { saveHistoryTimeline } from './saved-history-timeline.js';
import { type LossRecord, lossRecordsFromJson, lossRecordToJson, readLossRecords } from './loss-records.js';

/** What the `/history` view of an agent is planned from: its meta, its outline and its summary. */
export interface HistoryOutline {
  readonly meta: Readonly<Record<string, unknown>>;
  readonly messages: readonly MessageOutline[];
  /** The summary in force, if any. */
  readonly summary: StoredSummary | undefined;
  /** The cache figures recorded with its turns, oldest first. */
  readonly cacheUsage?: readonly RecordedCacheUsage[] | undefined;
  /** Where a `cache-aware` window's cut is kept (see `keptCutPosition`), so that a saved outline plans the same cut. */
  readonly keptCut?: MessagePosition | undefined;
  /** The loss reports of its summaries and evictions, oldest first (see `readLossRecords`). */
  readonly losses?: readonly LossRecord[] | undefined;
  /** True when pin or unpin events lie in what the model sees: the view is then planned from the bodies. */
  readonly pinned?: boolean | undefined;
}

/** The name an agent's outline is saved under beside a PGlite directory; a new layout takes a new name. */
export const HISTORY_OUTLINE_VIEW = 'history-outline-3';

/**
 * Reads an agent's history outline from the store: no message bodies are read. With `lastSeq`,
 * its messages as they stood once the agent had stored that many rows itself.
 */
export async function readHistoryOutline(store: ConversationStore, agentId: string, read: Pick<OwnRowsRead, 'lastSeq'> = {}): Promise<HistoryOutline> {
  const [messages, rest] = await Promise.all([store.outline(agentId, read), readOutlineRest(store, agentId)]);
  return { ...rest, messages };
}

/** Everything of an agent's outline but its messages: its meta, summary in force, cache figures, kept cut, loss reports and whether it has pins. */
export async function readOutlineRest(store: ConversationStore, agentId: string): Promise<Omit<HistoryOutline, 'messages'>> {
  const [meta, summary, cacheUsage, keptCut, losses, tail] = await Promise.all([
    store.agentMeta(agentId),
    activeSummary(store, agentId),
    readCacheUsage(store, agentId),
    // Read whatever the policy: the flags of the command that plans the outline may name another.
    keptCutPosition(store, agentId, { name: 'cache-aware' }),
    readLossRecords(store, agentId),
    // Only the latest exchange is read: what is wanted is the count of pin events.
    store.windowTail(agentId, { minTokens: 0, withFirstExchange: false }),
  ]);
  const pinned = (tail.pinEvents ?? 0) > 0;
  return {
    meta,
    summary,
    ...(cacheUsage.length > 0 ? { cacheUsage } : {}),
    ...(keptCut ? { keptCut } : {}),
    ...(losses.length > 0 ? { losses } : {}),
    ...(pinned ? { pinned } : {}),
  };
}

/** Reads an agent's history outline and saves it for {@link historyOutlineFromJson}, when the store is a PGlite directory. */
export function saveHistoryOutline(store: ConversationStore, agentId: string): Promise<HistoryOutline> {
  return store.deriveSavedView(agentId, HISTORY_OUTLINE_VIEW, () => readHistoryOutline(store, agentId), historyOutlineToJson);
}

/**
 * Saves the views `history` draws an agent from: its outline, and its timeline (`history` lists
 * the events too); with both saved it starts without the database. The saver a store that keeps
 * views is opened with, to call for each agent it wrote to as it closes.
 */
export async function saveHistoryViews(store: ConversationStore, agentId: string): Promise<void> {
  await saveHistoryOutline(store, agentId);
  await saveHistoryTimeline(store, agentId);
}

const position = z.strictObject({ agentId: z.string(), seq: z.number().int() });
/** The outline as saved; its message rows are checked one by one as they are read (see {@link outlinedRow}). */
const savedOutline = z.strictObject({
  meta: z.record(z.string(), z.unknown()),
  agents: z.array(z.string()),
  messages: z.array(z.unknown()),
  summary: z
    .strictObject({
      kind: z.string(),
      first: position,
      last: position,
      data: z.looseObject({ text: z.string(), summarizer: z.string(), coveredExchanges: z.number() }),
      createdAt: z.number(),
    })
    .nullable(),
  /** Each turn's recorded cache figures: agent, seq, requests, input, cache read and cache write tokens. */
  cacheUsage: z.array(z.tuple([z.string(), z.number().int(), z.number(), z.number(), z.number(), z.number()])).optional(),
  keptCut: position.optional(),
  losses: z.array(z.unknown()).optional(),
  pinned: z.boolean().optional(),
});

/** A message as saved: agent (an index into `agents`), seq, role, tokens, count target, method, exact, created (ms), title, tool parts. */
type SavedRow = [number, number, MessageOutline['role'], number | null, string | null, string, boolean, number, string | null, [number, OutlinedToolPart['type'], string, string][]];

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);
const isPart = (part: unknown): boolean =>
  Array.isArray(part) &&
  part.length === 4 &&
  Number.isInteger(part[0]) &&
  (part[1] === 'tool-call' || part[1] === 'tool-result') &&
  typeof part[2] === 'string' &&
  typeof part[3] === 'string';

/**
 * The row as a {@link SavedRow}, or undefined. Checked by hand: a schema over every row took
 * about 100 ms at 10,000 rows, a seventh of the whole `history` command.
 */
function outlinedRow(row: unknown): SavedRow | undefined {
  if (!Array.isArray(row)) return undefined;
  const [agent, seq, role, tokens, target, method, exact, createdAt, title, parts] = row as unknown[];
  const valid =
    row.length === 10 &&
    Number.isInteger(agent) &&
    Number.isInteger(seq) &&
    ROLES.has(role as string) &&
    (tokens === null || typeof tokens === 'number') &&
    (target === null || typeof target === 'string') &&
    typeof method === 'string' &&
    typeof exact === 'boolean' &&
    typeof createdAt === 'number' &&
    (title === null || typeof title === 'string') &&
    Array.isArray(parts) &&
    parts.every(isPart);
  return valid ? (row as SavedRow) : undefined;
}

/** An outline as JSON: agent ids listed once, messages as rows, times in milliseconds. */
export function historyOutlineToJson(outline: HistoryOutline): z.input<typeof savedOutline> & { messages: SavedRow[] } {
  const agents = [...new Set(outline.messages.map((message) => message.agentId))];
  const agentIndex = new Map(agents.map((agentId, index) => [agentId, index]));
  return {
    meta: { ...outline.meta },
    agents,
    messages: outline.messages.map((message) => [
      agentIndex.get(message.agentId) ?? 0,
      message.seq,
      message.role,
      message.count?.tokens ?? null,
      message.count?.target ?? null,
      message.count?.method ?? '',
      message.count?.exact ?? false,
      message.createdAt.getTime(),
      message.title,
      message.toolParts.map((part) => [part.partIndex, part.type, part.toolCallId, part.toolName]),
    ]),
    summary: outline.summary ? { ...outline.summary, createdAt: outline.summary.createdAt.getTime() } : null,
    cacheUsage: (outline.cacheUsage ?? []).map(({ at, usage }) => [
      at.agentId,
      at.seq,
      usage.requests,
      usage.inputTokens,
      usage.cacheReadTokens,
      usage.cacheWriteTokens,
    ]),
    ...(outline.keptCut ? { keptCut: { agentId: outline.keptCut.agentId, seq: outline.keptCut.seq } } : {}),
    ...(outline.losses ? { losses: outline.losses.map(lossRecordToJson) } : {}),
    ...(outline.pinned === true ? { pinned: true } : {}),
  };
}

/** The outline {@link historyOutlineToJson} gave, or undefined for anything else. */
export function historyOutlineFromJson(json: unknown): HistoryOutline | undefined {
  const parsed = savedOutline.safeParse(json);
  if (!parsed.success) return undefined;
  const { meta, agents, messages, summary, cacheUsage, keptCut, pinned } = parsed.data;
  const losses = parsed.data.losses === undefined ? [] : lossRecordsFromJson(parsed.data.losses);
  if (losses === undefined) return undefined;
  const outlined: MessageOutline[] = [];
  for (const row of messages) {
    const checked = outlinedRow(row);
    const agentId = checked && agents[checked[0]];
    if (checked === undefined || agentId === undefined) return undefined;
    const [, seq, role, tokens, target, method, exact, createdAt, title, toolParts] = checked;
    outlined.push({
      agentId,
      seq,
      role,
      count: tokens === null || target === null ? null : { tokens, exact, method, target },
      createdAt: new Date(createdAt),
      title,
      toolParts: toolParts.map(([partIndex, type, toolCallId, toolName]) => ({ partIndex, type, toolCallId, toolName })),
    });
  }
  const recorded = (cacheUsage ?? []).map(([agentId, seq, requests, inputTokens, cacheReadTokens, cacheWriteTokens]) => ({
    at: { agentId, seq },
    usage: { requests, inputTokens, cacheReadTokens, cacheWriteTokens },
  }));
  const stored = summary ? ({ ...summary, createdAt: new Date(summary.createdAt) } as StoredSummary) : undefined;
  return {
    meta,
    messages: outlined,
    summary: stored,
    ...(recorded.length > 0 ? { cacheUsage: recorded } : {}),
    ...(keptCut ? { keptCut } : {}),
    ...(losses.length > 0 ? { losses } : {}),
    ...(pinned === true ? { pinned } : {}),
  };
}
