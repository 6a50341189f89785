import { OWN_PROVIDER_OPTIONS_KEY } from '../exchange/aborted-results.js';
import type { ModelMessage, SystemMessage } from '../message/message.js';
import type { ContextRange, HistoryStore } from '../store/history-store.js';
import type { SummaryCost } from './summarizer.js';

/** What a `summary` range records beside the messages it covers. */
export interface SummaryData {
  readonly text: string;
  readonly summarizer: string;
  readonly cost: SummaryCost;
  /** Exchanges folded into this summary, those of the summaries before it included. */
  readonly coveredExchanges: number;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
}

/** A summary as stored: the range of history it stands for and what it says. */
export interface StoredSummary extends ContextRange {
  readonly data: SummaryData & Record<string, unknown>;
}

/**
 * The summary in force for an agent: the newest one whose last covered message the model still
 * sees. A rewind or clear past a summary's end sets it aside, so what it covered comes back.
 */
export async function activeSummary(store: HistoryStore, agentId: string): Promise<StoredSummary | undefined> {
  // A fork starts with the summary its parent had in force: ranges recorded up to the fork count.
  const summaries = (await store.ranges(agentId, { kind: 'summary', inherited: true })).reverse();
  if (summaries.length === 0) return undefined;
  const visible = await store.visible(agentId, summaries.map((summary) => summary.last));
  return summaries.find((_, index) => visible[index]) as StoredSummary | undefined;
}

/** The summary as the window carries it: one pinned system message, flagged as a summary. */
export function summaryMessage(text: string): SystemMessage {
  return { role: 'system', content: text, providerOptions: { [OWN_PROVIDER_OPTIONS_KEY]: { summary: true } } };
}

/** True for the window's summary message. */
export function isSummaryMessage(message: Pick<ModelMessage, 'role' | 'providerOptions'>): boolean {
  return message.role === 'system' && message.providerOptions?.[OWN_PROVIDER_OPTIONS_KEY]?.summary === true;
}
