import { useMemo } from 'preact/hooks';
import { type DisplayRow, displayRows } from './timeline-rows.js';
import { VirtualList } from './virtual-list.js';
import type { TimelineJson } from './web-data.js';

/** What a click on a row opens: an exchange's messages, an event's, or the summary. */
export type Opened = { readonly kind: 'messages'; readonly agentId: string; readonly fromSeq: number; readonly throughSeq: number | null; readonly title: string } | { readonly kind: 'summary' };

const EVENT_SYMBOLS: Readonly<Record<string, string>> = { clear: '⌫ clear', mark: '⚑ mark', rewind: '↶ rewind', fork: '↳ fork', summary: '≡ summary', uncompact: '↺ uncompact' };
const number = new Intl.NumberFormat('en-US');

/** A summary's loss report in one line, as `history` prints it: `dropped 3: path src/a.ts, …`. */
function droppedText(dropped: readonly { readonly kind: string; readonly text: string }[]): string {
  if (dropped.length === 0) return 'loss report: nothing dropped';
  const named = dropped.slice(0, 3).map((item) => `${item.kind} ${item.text.length > 60 ? `${item.text.slice(0, 59)}…` : item.text}`);
  return `loss report: dropped ${dropped.length}: ${named.join(', ')}${dropped.length > 3 ? ', …' : ''}`;
}

/**
 * An agent's timeline: one row per exchange (title, tools, tokens as a bar to scale), the
 * events between them, the summary and the `── context ──` cutoff where the window begins.
 */
export function Timeline(props: { readonly history: TimelineJson; readonly onOpen: (opened: Opened) => void }) {
  const rows = useMemo(() => displayRows(props.history), [props.history]);
  const maxTokens = useMemo(() => rows.reduce((max, row) => (row.type === 'exchange' ? Math.max(max, row.exchange.tokens) : max), 1), [rows]);
  const cutoffRow = useMemo(() => rows.findIndex((row) => row.type === 'cutoff'), [rows]);
  const render = (row: DisplayRow) => {
    switch (row.type) {
      case 'cutoff':
        return <div class="row cutoff" data-testid="cutoff">── context ──</div>;
      case 'summary': {
        const { summary } = row;
        const covers = summary.exchanges ? `#${summary.exchanges.first}–#${summary.exchanges.last}` : `${summary.coveredExchanges} exchanges`;
        return (
          <button
            type="button"
            class="row summary"
            data-testid="summary"
            onClick={() => {
              props.onOpen({ kind: 'summary' });
            }}
          >
            <span class="index">Σ</span>
            <span class="title">{`Summary (${summary.summarizer}) of ${covers}${summary.tokens === null ? '' : ` · ${number.format(summary.tokens)} tokens`}`}</span>
            <span class="loss">{`cost ${number.format(summary.cost.inputTokens)} in / ${number.format(summary.cost.outputTokens)} out tokens`}</span>
            {summary.dropped && (
              <span class="loss" data-testid="summary-dropped" title={summary.dropped.map((item) => `${item.kind} ${item.text}`).join('\n')}>
                {droppedText(summary.dropped)}
              </span>
            )}
          </button>
        );
      }
      case 'event': {
        const { kind, label } = row;
        return (
          <div class={`row event event-${kind}`} data-testid="event" data-kind={kind}>
            <span class="index" />
            <span class="title">
              {EVENT_SYMBOLS[kind] ?? kind}
              {' '}
              {label}
            </span>
          </div>
        );
      }
      case 'exchange': {
        const { exchange } = row;
        const { state } = exchange;
        return (
          <button
            type="button"
            class={`row exchange state-${state}`}
            data-testid="exchange"
            data-index={exchange.index ?? ''}
            data-state={state}
            onClick={() => {
              props.onOpen({ kind: 'messages', agentId: exchange.agentId, fromSeq: exchange.firstSeq, throughSeq: row.throughSeq, title: exchange.title });
            }}
          >
            <span class="index">{exchange.index === null ? '·' : `#${exchange.index}`}</span>
            <span class="title" title={exchange.title}>{exchange.title}</span>
            <span class="tools">
              {exchange.tools.join(' ')}
              {row.clearedOutputs > 0 ? ` ✂${row.clearedOutputs} cleared` : ''}
            </span>
            <span class="bar"><span style={{ width: `${(100 * exchange.tokens) / maxTokens}%` }} /></span>
            <span class="tokens">{number.format(exchange.tokens)}</span>
          </button>
        );
      }
    }
  };
  return <VirtualList rows={rows} renderRow={render} scrollToRow={cutoffRow === -1 ? rows.length - 1 : cutoffRow} />;
}
