/**
 * The first request of a conversation that no open conversation holds: the prefix rule finds the
 * stored conversation it extends (or forks, or none) among every stored agent. Timed against the
 * store's size (1k and 1M messages of other conversations), by the prefix index and by reading
 * every history as before, and through `sliding-context serve` end to end.
 */
import type { RegistryStore } from '../src/conversation/conversation-registry.js';
import { findConversationByReading } from '../src/conversation/find-conversation-by-prefix.js';
import type { ModelMessage } from '../src/message/message.js';
import { type ChatMessage, INSTANT_ANSWER, startInstantUpstream, syntheticHistory } from '../src/serve/_test-proxy-load.js';
import { startProxy } from '../src/serve/start-proxy.js';
import { HistoryStore } from '../src/store/history-store.js';
import { fillBusyStore } from './workloads/fill-busy-store.js';
import { formatMs, formatRatio, markdownTable, median } from './_table.js';

const HISTORY_TOKENS = 100_000;

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await work();
  return { result, ms: performance.now() - started };
}

/** The store as it was before the prefix index: the same, without `findStoredPrefix`, so that the prefix rule reads every history. */
function withoutPrefixIndex(store: HistoryStore): RegistryStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'findStoredPrefix') return undefined;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The first request of a conversation through the proxy: its client latency, the upstream answering at once. */
async function throughProxy(store: RegistryStore, messages: readonly ChatMessage[]): Promise<{ ms: number; agentId: string | null }> {
  const upstream = await startInstantUpstream();
  const proxy = await startProxy({ store, port: 0, upstreamOpenAi: upstream.url, budgetTokens: 32_000 });
  try {
    const { ms, result: agentId } = await timed(async () => {
      const response = await fetch(`${proxy.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'authorization': 'Bearer bench' },
        body: JSON.stringify({ model: 'gpt-4o', messages }),
      });
      if (!response.ok) throw new RangeError(`the proxy answered ${String(response.status)}: ${await response.text()}`);
      await response.arrayBuffer();
      return response.headers.get('x-sliding-context-agent');
    });
    return { ms, agentId };
  } finally {
    await proxy.close();
    await upstream.close();
  }
}

export async function runPrefixBenchmarks(quick: boolean): Promise<string[]> {
  const sizes = quick ? [1_000, 100_000] : [1_000, 1_000_000];
  const rows: string[][] = [];
  const fills: string[] = [];
  for (const size of sizes) {
    const store = await HistoryStore.open({ memory: true });
    try {
      const fill = await timed(() => fillBusyStore(store, size));
      // The conversation the requests come back to: about 100k tokens, stored as the proxy stores it.
      const history = syntheticHistory(7, HISTORY_TOKENS);
      const stored = await store.createAgentWithMessages({}, history);
      const asSent = (messages: readonly ChatMessage[]): ModelMessage[] => messages.map((message) => ({ ...message }));
      const requests: [string, ModelMessage[]][] = [
        ['continues a stored conversation', asSent([...history, { role: 'assistant', content: 'Done.' }, { role: 'user', content: 'And now?' }])],
        ['diverges from its middle (a fork)', asSent([...history.slice(0, 41), { role: 'user', content: 'Something else instead.' }])],
        ['shares nothing (a new conversation)', asSent(syntheticHistory(8, HISTORY_TOKENS))],
      ];
      for (const [name, sent] of requests) {
        const times: number[] = [];
        for (let round = 0; round < 9; round++) times.push((await timed(() => store.findStoredPrefix(sent))).ms);
        const index = median(times);
        const byIndex = await store.findStoredPrefix(sent);
        const reading = await timed(() => findConversationByReading(store, sent));
        if (JSON.stringify(byIndex) !== JSON.stringify(reading.result)) throw new RangeError(`${name}: the index found ${JSON.stringify(byIndex)}, reading ${JSON.stringify(reading.result)}`);
        const placed = byIndex === undefined ? 'new agent' : byIndex.shared === byIndex.storedLength ? `continues (${String(byIndex.shared)} messages)` : `forks (${String(byIndex.shared)} shared)`;
        rows.push([size.toLocaleString('en-US'), name, placed, formatMs(reading.ms), formatMs(index), formatRatio(reading.ms / index)]);
      }
      // Through a freshly started proxy, each request once without the index and once with it:
      // the stored conversation's next turn (the upstream's answer is stored with it), and a new conversation.
      const conversation: ChatMessage[] = [...history, { role: 'assistant', content: 'Done.' }];
      const continuing = () => {
        conversation.push({ role: 'user', content: `Go on (${String(conversation.length)}).` });
        const sent = [...conversation];
        conversation.push({ role: 'assistant', content: INSTANT_ANSWER });
        return sent;
      };
      const reading = withoutPrefixIndex(store);
      const before = [await throughProxy(reading, continuing()), await throughProxy(reading, syntheticHistory(9, HISTORY_TOKENS))];
      const after = [await throughProxy(store, continuing()), await throughProxy(store, syntheticHistory(10, HISTORY_TOKENS))];
      if (before[0]?.agentId !== stored.agentId || after[0]?.agentId !== stored.agentId) throw new RangeError('through the proxy, the next turn did not continue the stored conversation');
      ['continues a stored conversation', 'shares nothing (a new conversation)'].forEach((name, index) => {
        const [was, now] = [before[index]?.ms ?? Number.NaN, after[index]?.ms ?? Number.NaN];
        rows.push([size.toLocaleString('en-US'), `through the proxy: ${name}`, 'client latency', formatMs(was), formatMs(now), formatRatio(was / now)]);
      });
      fills.push(`${size.toLocaleString('en-US')} in ${(fill.ms / 1000).toFixed(1)} s`);
      if (stored.lastSeq !== history.length) throw new RangeError('the conversation was not stored whole');
    } finally {
      await store.close();
    }
  }
  return [`### The first request of a conversation: finding the stored conversation it extends, PGlite, a 100k-token conversation among ${sizes.map((size) => size.toLocaleString('en-US')).join(' / ')} other messages\n\n${markdownTable(
    ['messages stored (other agents)', 'request', 'placed', 'reading every history, ms (before)', 'prefix index, ms (median of 9)', 'faster'],
    rows,
  )}\n\nThe store holds the agents of other conversations (10,000 short messages each, stored in appends of 2,000) and one conversation of about 100k tokens (${String(syntheticHistory(7, HISTORY_TOKENS).length)} messages); each request is a whole conversation as a client sends it. Both finders give the same answer (checked). "Through the proxy": the client latency of a first request to a freshly started \`serve\` (placing, storing the new messages, windowing, the upstream answering at once), with the store as it is and as it was (the same store without its \`findStoredPrefix\`, so that the prefix rule reads every history). The other conversations took ${fills.join(', ')} to store, prefix index included.`];
}
