import type { ConversationStore } from '../conversation/conversation-store.js';
import { type HeldPlanning, newHeldPlanning } from '../conversation/exchange-history.js';
import { readHistoryOutline, readOutlineRest } from '../conversation/history-outline.js';
import { readSummaryEvents } from '../conversation/saved-history-timeline.js';
import { type HistoryJsonSources, historyJsonFrom, type PlanOptionsOf, storedPlanOptions } from './read-agent-history.js';

/** What a held history reads: a conversation store that tells an agent's last seq too. */
export type HeldHistoryStore = ConversationStore & { lastSeq(agentId: string): Promise<number> };

type AgentHistoryJson = Awaited<ReturnType<typeof historyJsonFrom>>;

/** How a held history is planned: with the agent's stored settings, through a planner held between plans. */
interface Planning {
  readonly planOptions: PlanOptionsOf;
  readonly planner: HeldPlanning;
}

/** Rows after which a held history is read again whole: they take back what was read before, or change how it is sent (a pin). */
const TAKES_BACK = new Set(['clear', 'rewind', 'pin', 'unpin']);
const MODEL_KINDS = new Set(['system', 'user', 'assistant', 'tool']);

/**
 * An agent's history as `history <agent> --json --all` prints it, held with the outline and the
 * timeline it was drawn from, so that after a write only what the agent stored since is read
 * ({@link update}): the new rows extend the outline and the timeline, and the rest (meta, summary,
 * cut, cache figures, forks) is read again, each a short read. A clear or a rewind since takes
 * back what was read, so the history is read again whole then.
 */
export class HeldAgentHistory {
  readonly agentId: string;
  /** The history, exactly as `history <agent> --json --all` prints it (before stringifying). */
  readonly json: AgentHistoryJson;
  readonly #sources: HistoryJsonSources;
  /** How many rows the agent had stored itself when the sources were read. */
  readonly #lastSeq: number;
  readonly #planOptions: PlanOptionsOf;
  /** Held from plan to plan: a history that grew is planned from what was added. */
  readonly #planner: HeldPlanning;

  private constructor(agentId: string, sources: HistoryJsonSources, lastSeq: number, planning: Planning, json: AgentHistoryJson) {
    this.agentId = agentId;
    this.#sources = sources;
    this.#lastSeq = lastSeq;
    this.#planOptions = planning.planOptions;
    this.#planner = planning.planner;
    this.json = json;
  }

  /** Reads an agent's whole history and plans it. */
  static async read(store: HeldHistoryStore, agentId: string, planOptions: PlanOptionsOf = storedPlanOptions): Promise<HeldAgentHistory> {
    // The outline and the timeline are read as of one last seq, so that they hold the same rows.
    const lastSeq = await store.lastSeq(agentId);
    const [outline, path, summaries] = await Promise.all([
      readHistoryOutline(store, agentId, { lastSeq }),
      store.timeline(agentId, { acrossClears: true, lastSeq }),
      readSummaryEvents(store, agentId),
    ]);
    return HeldAgentHistory.#plan(store, agentId, { outline, timeline: { ...path, summaries } }, lastSeq, { planOptions, planner: newHeldPlanning() });
  }

  /**
   * The history after the writes since it was read: the agent's rows stored since are read and
   * appended, and everything else that a write may change is read again. Read whole instead when
   * a clear or a rewind was stored since.
   */
  async update(store: HeldHistoryStore): Promise<HeldAgentHistory> {
    const lastSeq = await store.lastSeq(this.agentId);
    const since = { afterSeq: this.#lastSeq, lastSeq };
    const [added, outlined, rest, summaries] = await Promise.all([
      store.timeline(this.agentId, { acrossClears: true, ...since }),
      store.outline(this.agentId, since),
      readOutlineRest(store, this.agentId),
      readSummaryEvents(store, this.agentId),
    ]);
    const modelRows = added.entries.filter((entry) => MODEL_KINDS.has(entry.kind)).length;
    // A clear or a rewind hides rows read before; a count that differs means one slipped in between the reads.
    if (added.entries.some((entry) => TAKES_BACK.has(entry.kind)) || outlined.length !== modelRows) {
      return HeldAgentHistory.read(store, this.agentId, this.#planOptions);
    }
    const { outline, timeline } = this.#sources;
    const sources = {
      outline: { ...rest, messages: appended(outline.messages, outlined) },
      timeline: { entries: appended(timeline.entries, added.entries), forks: added.forks, summaries },
    };
    return HeldAgentHistory.#plan(store, this.agentId, sources, lastSeq, { planOptions: this.#planOptions, planner: this.#planner });
  }

  static async #plan(store: ConversationStore, agentId: string, sources: HistoryJsonSources, lastSeq: number, planning: Planning): Promise<HeldAgentHistory> {
    const json = await historyJsonFrom(store, agentId, sources, planning.planOptions, planning.planner);
    return new HeldAgentHistory(agentId, sources, lastSeq, planning, json);
  }
}

/** `rows` with `more` after them, as a new array (the held one may still be read), in one copy. */
function appended<Row>(rows: readonly Row[], more: readonly Row[]): Row[] {
  if (more.length === 0) return rows as Row[];
  const all = rows.slice();
  for (const row of more) all.push(row);
  return all;
}
