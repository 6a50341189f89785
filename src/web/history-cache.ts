import type { HistoryStore } from '../store/history-store.js';
import { type PlanOptionsOf, readAgentHistoryJson } from '../views/read-agent-history.js';

type AgentHistoryJson = Awaited<ReturnType<typeof readAgentHistoryJson>>;

/**
 * The history JSON of the agents the page reads, kept until the store is written to: a long
 * history is planned once, not for each request of the page (history, requests) nor for each
 * page that opens it. Any committed write empties it (a write to an ancestor changes a fork's
 * view too).
 */
export class HistoryCache {
  readonly #store: HistoryStore;
  readonly #planOptions: PlanOptionsOf | undefined;
  readonly #kept = new Map<string, Promise<{ json: AgentHistoryJson; text: string }>>();
  #stopListening: Promise<() => Promise<void>> | undefined;

  constructor(store: HistoryStore, planOptions: PlanOptionsOf | undefined) {
    this.#store = store;
    this.#planOptions = planOptions;
  }

  /** The agent's history as `history --json --all` prints it. */
  async read(agentId: string): Promise<AgentHistoryJson> {
    return (await this.#read(agentId)).json;
  }

  /** {@link read} as JSON text, kept too: a long history takes a while to stringify. */
  async readText(agentId: string): Promise<string> {
    return (await this.#read(agentId)).text;
  }

  async #read(agentId: string) {
    this.#stopListening ??= this.#store.onWrite(() => {
      this.#kept.clear();
    });
    await this.#stopListening;
    let kept = this.#kept.get(agentId);
    if (kept === undefined) {
      kept = readAgentHistoryJson(this.#store, agentId, this.#planOptions).then((json) => ({ json, text: JSON.stringify(json) }));
      this.#kept.set(agentId, kept);
      // A failed read is not kept: the next one tries again.
      kept.catch(() => this.#kept.delete(agentId));
    }
    return kept;
  }

  /** Stops listening to the store and forgets what it kept. */
  async close(): Promise<void> {
    this.#kept.clear();
    const stopping = this.#stopListening;
    this.#stopListening = undefined;
    if (stopping) await (await stopping)();
  }
}
