import { z } from 'zod';
import { LOSS_KINDS, type LossItem } from '../condense/loss-report.js';
import type { ContextRange, ConversationStore, MessagePosition } from './conversation-store.js';

/** A summary or an eviction, with what it left out of the model's view, as `history` lists it. */
export interface LossRecord {
  readonly kind: 'summary' | 'evicted';
  /** The stored messages of the range it recorded. */
  readonly first: MessagePosition;
  readonly last: MessagePosition;
  /** For an eviction, how many exchanges it evicted; null for a summary. */
  readonly exchanges: number | null;
  /** Why: the eviction's reason (`budget`, `overflow`), or the summarizer's name. */
  readonly reason: string | null;
  readonly createdAt: Date;
  readonly dropped: readonly LossItem[];
}

/** `history` keeps the loss reports of this many summaries and evictions, the newest. */
export const LOSS_RECORDS_KEPT = 100;

const lossItem = z.strictObject({ kind: z.enum(LOSS_KINDS), text: z.string(), exchange: z.number().int() });
const position = z.strictObject({ agentId: z.string(), seq: z.number().int() });
/** A loss record as saved with a history outline (times in milliseconds). */
export const savedLossRecord = z.strictObject({
  kind: z.enum(['summary', 'evicted']),
  first: position,
  last: position,
  exchanges: z.number().int().nullable(),
  reason: z.string().nullable(),
  createdAt: z.number(),
  dropped: z.array(lossItem),
});

/** A stored loss report (a range's `dropped`), or undefined when there is none or it does not parse. */
export function storedDropped(value: unknown): LossItem[] | undefined {
  const parsed = z.array(lossItem).safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** The loss record of a stored range; undefined for another kind, or a range recorded before loss reports were. */
export function lossRecordOf(range: ContextRange): LossRecord | undefined {
  if (range.kind !== 'summary' && range.kind !== 'evicted') return undefined;
  const dropped = storedDropped(range.data.dropped);
  if (!dropped) return undefined;
  const { exchanges } = range.data;
  const why = range.kind === 'evicted' ? range.data.reason : range.data.summarizer;
  return {
    kind: range.kind,
    first: range.first,
    last: range.last,
    exchanges: range.kind === 'evicted' && typeof exchanges === 'number' ? exchanges : null,
    reason: typeof why === 'string' ? why : null,
    createdAt: range.createdAt,
    dropped,
  };
}

/** The loss reports of an agent's summaries and evictions (those inherited up to a fork included), oldest first: the newest {@link LOSS_RECORDS_KEPT}. */
export async function readLossRecords(store: ConversationStore, agentId: string): Promise<LossRecord[]> {
  const [summaries, evictions] = await Promise.all([store.ranges(agentId, { kind: 'summary', inherited: true }), store.ranges(agentId, { kind: 'evicted', inherited: true })]);
  const records: LossRecord[] = [];
  for (const range of [...summaries, ...evictions]) {
    const record = lossRecordOf(range);
    if (record) records.push(record);
  }
  // A summary recorded in the same turn as an eviction comes after it: the condenser runs after the prune.
  records.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.kind === b.kind ? 0 : a.kind === 'evicted' ? -1 : 1));
  return records.slice(-LOSS_RECORDS_KEPT);
}

/** A loss record as JSON (`history --json`, the saved outline): its time in milliseconds. */
export function lossRecordToJson(record: LossRecord): z.input<typeof savedLossRecord> {
  return { ...record, first: { ...record.first }, last: { ...record.last }, createdAt: record.createdAt.getTime(), dropped: [...record.dropped] };
}

/** The records {@link lossRecordToJson} gave; undefined when any does not parse. */
export function lossRecordsFromJson(json: unknown): LossRecord[] | undefined {
  const parsed = z.array(savedLossRecord).safeParse(json);
  return parsed.success ? parsed.data.map((record) => ({ ...record, createdAt: new Date(record.createdAt) })) : undefined;
}
