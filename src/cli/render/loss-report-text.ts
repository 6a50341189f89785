import { describeLoss, type LossItem } from '../../condense/loss-report.js';
import type { LossRecord } from '../../conversation/loss-records.js';
import { formatAge } from './format-age.js';
import { formatCount } from './format-count.js';
import { neutralizeControlCharacters } from './neutralize-control-characters.js';

/**
 * A loss report as `compact` shows it: one line per item, with the exchange it was in (the seq
 * of its first message), under a heading; one line when nothing leaves the model's view.
 */
export function renderLossReport(items: readonly LossItem[]): string {
  if (items.length === 0) return 'Loss report: nothing named in these exchanges leaves the model\'s view.';
  const lines = items.map((item) => `- ${item.kind} ${neutralizeControlCharacters(item.text)} (exchange from message ${item.exchange})`);
  return [`Loss report: ${items.length} left the model's view (in neither the summary nor the window):`, ...lines].join('\n');
}

/** `history` lists the loss reports of this many summaries and evictions, the newest, unless `--all`. */
const RECENT_LOSS_RECORDS = 10;

/**
 * The loss reports of an agent's summaries and evictions as `history` lists them: one short line
 * each (`5 min ago  summary (digest): dropped 3: path src/a.ts, …`), the newest few unless `all`.
 */
export function renderLossRecords(records: readonly LossRecord[], options: { readonly all: boolean; readonly now: Date }): string[] {
  if (records.length === 0) return [];
  const shown = options.all ? records : records.slice(-RECENT_LOSS_RECORDS);
  const heading = shown.length < records.length ? `Loss reports (the newest ${shown.length} of ${records.length}; --all lists every one):` : 'Loss reports:';
  const lines = shown.map((record) => {
    const what = record.kind === 'summary' ? `summary (${record.reason ?? 'unknown summarizer'})` : `evicted ${formatCount(record.exchanges ?? 0, 'exchange')} (${record.reason ?? 'budget'})`;
    return `  ${formatAge(record.createdAt, options.now)}  ${what}: ${neutralizeControlCharacters(describeLoss(record.dropped))}`;
  });
  return [heading, ...lines];
}
