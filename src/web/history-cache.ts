import type { HistoryStore } from '../store/history-store.js';
import { compactTimeline, compactTimelineWindow, type TimelineWindowRequest } from '../views/compact-timeline.js';
import { HeldAgentHistory } from '../views/held-agent-history.js';
import type { PlanOptionsOf } from '../views/read-agent-history.js';
import { requestColumns, requestSeries } from '../views/request-series.js';
import { KeptJsonText } from './kept-json-text.js';

type AgentHistoryJson = HeldAgentHistory['json'];

/** How many agents' histories are held at once: those read most recently. */
const HELD_AGENTS = 4;

/** The arrays of `history --json` that grow with the history: their rows' texts are kept. */
const HISTORY_ROWS = ['exchanges', 'timeline', 'events', 'hiddenExchanges'];

/** The texts of an agent's history and of its timeline, with the rows they were made of kept. */
interface KeptTexts {
  readonly history: KeptJsonText;
  readonly timeline: KeptJsonText;
}

/** An agent's held history, the count of writes heard when it was asked for, and its kept texts. */
interface HeldEntry {
  readonly writes: number;
  readonly history: Promise<HeldAgentHistory>;
  readonly texts: KeptTexts;
}

/**
 * The JSON the page reads of each agent. Each agent's history is held ({@link HeldAgentHistory})
 * and, after a write, brought up to date by reading what was stored since, not planned again
 * from the whole store; its JSON texts are made once per write, not for each request of the
 * page nor for each page that opens it. Any committed write makes them all stale (a write to an
 * ancestor or a fork may change a view too).
 */
export class HistoryCache {
  readonly #store: HistoryStore;
  readonly #planOptions: PlanOptionsOf | undefined;
  /** Each agent's held history, the count of writes heard when it was asked for, and its texts' kept rows. */
  readonly #histories = new Map<string, HeldEntry>();
  readonly #texts = new Map<string, Promise<string>>();
  #writes = 0;
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
    return this.#text(`history:${agentId}`, async () => {
      const { json, texts } = await this.#history(agentId);
      return texts.history.text(json);
    });
  }

  /** The agent's history as the page's first render reads it ({@link compactTimeline}), as JSON text. */
  timelineText(agentId: string): Promise<string> {
    return this.#text(`timeline:${agentId}`, async () => {
      const { json, texts } = await this.#history(agentId);
      return texts.timeline.text(compactTimeline(json));
    });
  }

  /**
   * A window of the agent's timeline ({@link compactTimelineWindow}): the rows the page draws
   * first, or those it scrolls to, with the counts that place them among the rest, as JSON text.
   * Made from the history held, in time that grows with the rows asked for.
   */
  async timelineWindowText(agentId: string, request: TimelineWindowRequest): Promise<string> {
    await this.#listening();
    const { json } = await this.#history(agentId);
    return JSON.stringify(compactTimelineWindow(json, request));
  }

  /**
   * The request tokens per turn ({@link requestSeries}, as {@link requestColumns}) with the
   * budget, as JSON text: drawn from the history and the ranges recorded for the agent and its
   * ancestors.
   */
  requestsText(agentId: string): Promise<string> {
    return this.#text(`requests:${agentId}`, async () => {
      const [{ json: history }, ranges] = await Promise.all([this.#history(agentId), this.#store.ranges(agentId, { inherited: true })]);
      const points = requestSeries(history.timeline, ranges, { pinnedTokens: history.pinnedTokens, budgetTokens: history.budgetTokens });
      return JSON.stringify({ agentId, budgetTokens: history.budgetTokens, pinnedTokens: history.pinnedTokens, ...requestColumns(points) });
    });
  }

  /** Stops listening to the store and forgets what it kept. */
  async close(): Promise<void> {
    this.#histories.clear();
    this.#texts.clear();
    const stopping = this.#stopListening;
    this.#stopListening = undefined;
    if (stopping) await (await stopping)();
  }

  /**
   * The agent's history as of the writes heard so far: the one held, brought up to date when a
   * write was heard since it was asked for (read whole the first time, or after a failure).
   */
  async #history(agentId: string): Promise<{ json: AgentHistoryJson; texts: KeptTexts }> {
    const held = this.#histories.get(agentId);
    const writes = this.#writes;
    if (held?.writes === writes) return { json: (await held.history).json, texts: held.texts };
    const read = () => HeldAgentHistory.read(this.#store, agentId, this.#planOptions);
    const history = held ? held.history.then((before) => before.update(this.#store), read) : read();
    const texts = held?.texts ?? { history: new KeptJsonText(HISTORY_ROWS), timeline: new KeptJsonText(['rows']) };
    // Held most recently asked for last: the first in the map is the one to let go.
    this.#histories.delete(agentId);
    this.#histories.set(agentId, { writes, history, texts });
    for (const oldest of this.#histories.keys()) {
      if (this.#histories.size <= HELD_AGENTS) break;
      this.#histories.delete(oldest);
    }
    history.catch(() => {
      if (this.#histories.get(agentId)?.history === history) this.#histories.delete(agentId);
    });
    return { json: (await history).json, texts };
  }

  async #text(key: string, make: () => Promise<string>): Promise<string> {
    await this.#listening();
    return this.#keep(this.#texts, key, make);
  }

  /** Listens to the store's writes (from the first read on): each makes what is held stale. */
  async #listening(): Promise<void> {
    this.#stopListening ??= this.#store.onWrite(() => {
      this.#writes++;
      this.#texts.clear();
    });
    await this.#stopListening;
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
