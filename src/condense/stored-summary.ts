import { OWN_PROVIDER_OPTIONS_KEY } from '../exchange/aborted-results.js';
import type { ModelMessage, SystemMessage } from '../message/message.js';
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

/** The summary as the window carries it: one pinned system message, flagged as a summary. */
export function summaryMessage(text: string): SystemMessage {
  return { role: 'system', content: text, providerOptions: { [OWN_PROVIDER_OPTIONS_KEY]: { summary: true } } };
}

/** True for the window's summary message. */
export function isSummaryMessage(message: Pick<ModelMessage, 'role' | 'providerOptions'>): boolean {
  return message.role === 'system' && message.providerOptions?.[OWN_PROVIDER_OPTIONS_KEY]?.summary === true;
}
