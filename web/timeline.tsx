import { useCallback, useMemo } from 'preact/hooks';
import { type DisplayRow, displayLayout } from './timeline-rows.js';
import type { TimelineStore } from './timeline-store.js';
import { VirtualList } from './virtual-list.js';

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
 * events between them, the summary and the `── context ──` cutoff where the window begins. The
 * rows are read as they come into view (`store`); `version` changes when more arrive.
 */
export function Timeline(props: { readonly store: TimelineStore; readonly version: number; readonly onOpen: (opened: Opened) => void }) {
  const { store } = props;
  const layout = useMemo(() => displayLayout(store.head), [store]);
  const { maxTokens } = store.head;
  const rowOf = (position: number): DisplayRow | undefined => {
    const place = layout.at(position);
    if ('row' in place) return store.row(place.row);
    return place.marker === 'cutoff' ? { type: 'cutoff' } : { type: 'summary', summary: place.summary };
  };
  const onRange = useCallback(
    (first: number, last: number) => {
      // The timeline's rows under the drawn ones: the markers take no row of their own.
      const from = layout.at(first);
      const through = layout.at(last);
      const rowFrom = 'row' in from ? from.row : layout.cutoffAt;
      const rowThrough = 'row' in through ? through.row : layout.cutoffAt;
      store.want(rowFrom, rowThrough);
    },
    [store, layout],
  );
  const render = (position: number) => {
    const row = rowOf(position);
    if (row === undefined) return <div class="row loading" data-testid="loading" />;
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
  return (
    <VirtualList
      count={layout.count}
      renderRow={render}
      onRange={onRange}
      scrollToRow={layout.cutoffAt === -1 ? layout.count - 1 : layout.cutoffAt}
    />
  );
}
