import type { HistoryStore } from '../store/history-store.js';
import { compactTimeline } from '../views/compact-timeline.js';
import { type PlanOptionsOf, readAgentHistoryJson } from '../views/read-agent-history.js';
import { requestColumns, requestSeries } from '../views/request-series.js';

type AgentHistoryJson = Awaited<ReturnType<typeof readAgentHistoryJson>>;

/**
 * The JSON the page reads of each agent, kept until the store is written to: a long history is
 * planned (and stringified) once, not for each request of the page nor for each page that opens
 * it. Any committed write empties it (a write to an ancestor changes a fork's view too).
 */
export class HistoryCache {
  readonly #store: HistoryStore;
  readonly #planOptions: PlanOptionsOf | undefined;
  readonly #histories = new Map<string, Promise<AgentHistoryJson>>();
  readonly #texts = new Map<string, Promise<string>>();
  #stopListening: Promise<() => Promise<void>> | undefined;

  constructor(store: HistoryStore, planOptions: PlanOptionsOf | undefined) {
    this.#store = store;
    this.#planOptions = planOptions;
  }

  /** Every agent, as `agents --json` prints them, as JSON text. */
  agentsText(): Promise<string> {
    return this.#text('agents', async () => JSON.stringify(await this.#store.listAgents()));
  }

  /** The agent's history as `history --json --all` prints it, as JSON text. */
  historyText(agentId: string): Promise<string> {
    return this.#text(`history:${agentId}`, async () => JSON.stringify(await this.#history(agentId)));
  }

  /** The agent's history as the page's first render reads it ({@link compactTimeline}), as JSON text. */
  timelineText(agentId: string): Promise<string> {
    return this.#text(`timeline:${agentId}`, async () => JSON.stringify(compactTimeline(await this.#history(agentId))));
  }

  /**
   * The request tokens per turn ({@link requestSeries}, as {@link requestColumns}) with the
   * budget, as JSON text: drawn from the history and the ranges recorded for the agent and its
   * ancestors.
   */
  requestsText(agentId: string): Promise<string> {
    return this.#text(`requests:${agentId}`, async () => {
      const [history, ranges] = await Promise.all([this.#history(agentId), this.#store.ranges(agentId, { inherited: true })]);
      const points = requestSeries(history.timeline, ranges, { pinnedTokens: history.pinnedTokens, budgetTokens: history.budgetTokens });
      return JSON.stringify({ agentId, budgetTokens: history.budgetTokens, pinnedTokens: history.pinnedTokens, ...requestColumns(points) });
    });
  }

  /** Stops listening to the store and forgets what it kept. */
  async close(): Promise<void> {
    this.#forget();
    const stopping = this.#stopListening;
    this.#stopListening = undefined;
    if (stopping) await (await stopping)();
  }

  #forget(): void {
    this.#histories.clear();
    this.#texts.clear();
  }

  async #history(agentId: string): Promise<AgentHistoryJson> {
    return this.#keep(this.#histories, agentId, () => readAgentHistoryJson(this.#store, agentId, this.#planOptions));
  }

  async #text(key: string, make: () => Promise<string>): Promise<string> {
    this.#stopListening ??= this.#store.onWrite(() => {
      this.#forget();
    });
    await this.#stopListening;
    return this.#keep(this.#texts, key, make);
  }

  /** The kept value of `key`, made now if there is none; a failure is not kept, so the next read tries again. */
  #keep<Value>(kept: Map<string, Promise<Value>>, key: string, make: () => Promise<Value>): Promise<Value> {
    let value = kept.get(key);
    if (value === undefined) {
      value = make();
      kept.set(key, value);
      value.catch(() => kept.delete(key));
    }
    return value;
  }
}
