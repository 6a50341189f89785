import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import type { RequestsJson } from './web-data.js';

/**
 * The request's tokens turn by turn against the budget line, with the turns where the window
 * evicted exchanges (▼) and where it made a summary (Σ) marked.
 */
export function RequestChart(props: { readonly requests: RequestsJson }) {
  const holder = useRef<HTMLDivElement>(null);
  const { requests } = props;
  useEffect(() => {
    const element = holder.current;
    if (!element) return undefined;
    const data: uPlot.AlignedData = [
      [...requests.turn],
      [...requests.tokens],
      [...requests.turnBudgetTokens],
      requests.tokens.map((tokens, index) => ((requests.evictedExchanges[index] ?? 0) > 0 ? tokens : null)),
      requests.tokens.map((tokens, index) => (requests.summarized[index] === 1 ? tokens : null)),
    ];
    const chart = new uPlot(
      {
        width: element.clientWidth || 800,
        height: 180,
        legend: { show: false },
        scales: { x: { time: false }, y: { range: (_self, _min, max) => [0, Math.max(max, requests.budgetTokens) * 1.05] } },
        axes: [{ label: 'turn' }, { label: 'tokens', size: 60 }],
        series: [
          { label: 'turn' },
          { label: 'request', stroke: '#2f6fdf', width: 1.5, points: { show: requests.turn.length <= 400 } },
          { label: 'budget', stroke: '#d33', width: 1, dash: [6, 4], points: { show: false } },
          { label: 'evicted', stroke: '#e08a00', width: 0, points: { show: true, size: 7, fill: '#e08a00' } },
          { label: 'summary', stroke: '#7b3fbf', width: 0, points: { show: true, size: 9, fill: '#7b3fbf' } },
        ],
      },
      data,
      element,
    );
    const resize = new ResizeObserver(() => {
      chart.setSize({ width: element.clientWidth || 800, height: 180 });
    });
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [requests]);
  const maxTokens = requests.tokens.reduce((max, tokens) => Math.max(max, tokens), 0);
  const minBudget = requests.turnBudgetTokens.reduce((min, budget) => Math.min(min, budget), requests.budgetTokens);
  return (
    <figure class="chart-figure">
      <div class="chart" ref={holder} data-testid="request-chart" data-points={requests.turn.length} data-max-tokens={maxTokens} data-min-budget={minBudget} />
      <figcaption>
        <span class="key request">request tokens per turn</span>
        <span class="key budget">budget</span>
        <span class="key evicted">evicted</span>
        <span class="key summary">summary made</span>
      </figcaption>
    </figure>
  );
}
