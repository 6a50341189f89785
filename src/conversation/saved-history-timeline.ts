import { z } from 'zod';
import { SUMMARY_RANGE_KINDS } from './active-summary.js';
import type { ConversationStore, TimelineEntry, TimelineFork } from './conversation-store.js';
import { type SummaryEvent, summaryEvents } from './summary-events.js';

/** An agent's whole path, events included, the forks along and from it, and its summaries and uncompacts: what `history` lists. */
export interface HistoryTimelineSource {
  readonly entries: readonly TimelineEntry[];
  readonly forks: readonly TimelineFork[];
  readonly summaries: readonly SummaryEvent[];
}

/** The name the timeline is saved under beside a PGlite directory; a new layout takes a new name. */
export const HISTORY_TIMELINE_VIEW = 'history-timeline-2';

/** A row as saved: agent (an index into `agents`), seq, kind, label, tokens, created (ms), starts an exchange, title, tool names. */
type SavedEntry = [number, number, string, string | null, number | null, number, boolean, string | null, string[]];

const savedTimeline = z.strictObject({
  agents: z.array(z.string()),
  entries: z.array(z.unknown()),
  forks: z.array(z.strictObject({ parentId: z.string(), seq: z.number().int(), childId: z.string(), childName: z.string().nullable(), createdAt: z.number() })),
  summaries: z.array(z.strictObject({
    kind: z.enum(['summary', 'uncompact']),
    agentId: z.string(),
    seq: z.number().int(),
    createdAt: z.number(),
    summarizer: z.string(),
    coveredExchanges: z.number(),
    undone: z.boolean(),
  })),
});

/**
 * The row as a {@link SavedEntry}, or undefined. Checked by hand, as the outline's rows are: a
 * schema per row costs more than the rest of reading a long history.
 */
function savedEntry(row: unknown): SavedEntry | undefined {
  if (!Array.isArray(row) || row.length !== 9) return undefined;
  const [agent, seq, kind, label, tokens, createdAt, starts, title, tools] = row as unknown[];
  const valid =
    Number.isInteger(agent) &&
    Number.isInteger(seq) &&
    typeof kind === 'string' &&
    (label === null || typeof label === 'string') &&
    (tokens === null || typeof tokens === 'number') &&
    typeof createdAt === 'number' &&
    typeof starts === 'boolean' &&
    (title === null || typeof title === 'string') &&
    Array.isArray(tools) &&
    tools.every((name) => typeof name === 'string');
  return valid ? (row as SavedEntry) : undefined;
}

/** Reads the timeline from the store: the whole path across clears, with the summaries and uncompacts recorded along it. */
export async function readHistoryTimeline(store: ConversationStore, agentId: string): Promise<HistoryTimelineSource> {
  const [timeline, summaries] = await Promise.all([store.timeline(agentId, { acrossClears: true }), readSummaryEvents(store, agentId)]);
  return { ...timeline, summaries };
}

/** The summaries and uncompacts recorded along an agent's path, as `history` lists them. */
export async function readSummaryEvents(store: ConversationStore, agentId: string): Promise<SummaryEvent[]> {
  return summaryEvents(await store.ranges(agentId, { kind: SUMMARY_RANGE_KINDS, inherited: true }));
}

/** Reads the timeline from the store, and saves it beside a PGlite directory for {@link historyTimelineFromJson}. */
export function saveHistoryTimeline(store: ConversationStore, agentId: string): Promise<HistoryTimelineSource> {
  return store.deriveSavedView(agentId, HISTORY_TIMELINE_VIEW, () => readHistoryTimeline(store, agentId), historyTimelineToJson);
}

/** A timeline as JSON: agent ids listed once, rows as arrays, times in milliseconds. */
export function historyTimelineToJson(timeline: HistoryTimelineSource): z.input<typeof savedTimeline> & { entries: SavedEntry[] } {
  const agents = [...new Set(timeline.entries.map((entry) => entry.agentId))];
  const agentIndex = new Map(agents.map((agentId, index) => [agentId, index]));
  return {
    agents,
    entries: timeline.entries.map((entry) => [
      agentIndex.get(entry.agentId) ?? 0,
      entry.seq,
      entry.kind,
      entry.label,
      entry.tokens,
      entry.createdAt.getTime(),
      entry.startsExchange,
      entry.title,
      [...entry.toolNames],
    ]),
    forks: timeline.forks.map((fork) => ({ ...fork, createdAt: fork.createdAt.getTime() })),
    summaries: timeline.summaries.map((event) => ({ ...event, createdAt: event.createdAt.getTime() })),
  };
}

/** The timeline {@link historyTimelineToJson} gave, or undefined for anything else. */
export function historyTimelineFromJson(json: unknown): HistoryTimelineSource | undefined {
  const parsed = savedTimeline.safeParse(json);
  if (!parsed.success) return undefined;
  const entries: TimelineEntry[] = [];
  for (const row of parsed.data.entries) {
    const entry = savedEntry(row);
    const agentId = entry && parsed.data.agents[entry[0]];
    if (!entry || agentId === undefined) return undefined;
    const [, seq, kind, label, tokens, createdAt, startsExchange, title, toolNames] = entry;
    entries.push({ agentId, seq, kind, label, tokens, createdAt: new Date(createdAt), startsExchange, title, toolNames });
  }
  return {
    entries,
    forks: parsed.data.forks.map((fork) => ({ ...fork, createdAt: new Date(fork.createdAt) })),
    summaries: parsed.data.summaries.map((event) => ({ ...event, createdAt: new Date(event.createdAt) })),
  };
}
