/**
 * The steps of a `WindowState` turn timed apart (append, prune, windowMessages) on 10,000 and
 * 1,000,000 messages of history. The history's counts are fixed, so that setting up takes
 * seconds and only the structure's cost is seen; the turns are counted for real.
 */
import type { ModelMessage } from '../src/message/message.js';
import { loadTokenCounter } from '../src/tokens/load-token-counter.js';
import type { TokenCount } from '../src/tokens/token-counter.js';
import { WindowState } from '../src/window/window-state.js';
import { formatMs, markdownTable, median } from './_table.js';
import { agentTraffic, TRAFFIC_SEED, TRAFFIC_SYSTEM, TRAFFIC_TOOLS } from './workloads/agent-traffic.js';
import { withKnownCounts } from './workloads/known-counts.js';

export async function runWindowStepBenchmarks(quick: boolean): Promise<string[]> {
  const counter = await loadTokenCounter();
  const sizes = quick ? [10_000, 100_000] : [10_000, 1_000_000];
  const warmUp = 10;
  const turns = quick ? 20 : 50;
  const rows: string[][] = [];
  for (const size of sizes) {
    const traffic = agentTraffic(TRAFFIC_SEED);
    const history = traffic.history(size);
    const fixed = new Map<ModelMessage, TokenCount>(history.map((message) => [message, { tokens: 350, exact: true, method: 'fixed' }]));
    const state = new WindowState({
      provider: 'openai',
      model: 'gpt-4o',
      budgetTokens: 100_000,
      system: TRAFFIC_SYSTEM,
      tools: TRAFFIC_TOOLS,
      counter: withKnownCounts(counter, fixed),
    });
    state.append(history).prune();
    const times = { append: [] as number[], prune: [] as number[], window: [] as number[] };
    const time = (into: number[], work: () => unknown) => {
      const start = performance.now();
      work();
      into.push(performance.now() - start);
    };
    for (let turn = 0; turn < warmUp + turns; turn++) {
      const exchange = traffic.nextExchange();
      time(times.append, () => state.append(exchange));
      time(times.prune, () => state.prune());
      time(times.window, () => state.windowMessages());
    }
    const of = (values: number[]) => formatMs(median(values.slice(warmUp)));
    rows.push([size.toLocaleString('en-US'), of(times.append), of(times.prune), of(times.window)]);
  }
  return [
    `### WindowState: the steps of a turn, median ms (history counts fixed, the turns counted)\n\n${markdownTable(['history messages', 'append (counts the turn)', 'prune', 'windowMessages'], rows)}`,
  ];
}
