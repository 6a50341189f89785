import { agentSettings, storedPreambleCount } from '../conversation/agent-settings.js';
import type { ConversationStore } from '../conversation/conversation-store.js';
import { type HeldPlanning, type OutlinePlanOptions, planHistoryView } from '../conversation/exchange-history.js';
import { buildHistoryTimeline } from '../conversation/history-timeline.js';
import { type HistoryOutline, readHistoryOutline } from '../conversation/history-outline.js';
import { type HistoryTimelineSource, readHistoryTimeline } from '../conversation/saved-history-timeline.js';
import { DEFAULT_PROVIDER, defaultModelFor } from '../tokens/default-target.js';
import { agentHistoryJson } from './agent-history-json.js';
import { agentWireFormat } from './agent-wire-format.js';

/** What planning an agent's history takes, from its stored meta. */
export type PlanOptionsOf = (meta: Readonly<Record<string, unknown>>) => Promise<OutlinePlanOptions>;

/**
 * Plans with the model and settings the agent was stored with; the counter for its model is
 * loaded only when a count is not stored for it.
 */
export const storedPlanOptions: PlanOptionsOf = (meta) => {
  const provider = typeof meta.provider === 'string' ? meta.provider : DEFAULT_PROVIDER;
  const model = typeof meta.model === 'string' ? meta.model : defaultModelFor(provider);
  return Promise.resolve({
    ...agentSettings(meta),
    provider,
    model,
    preambleCount: storedPreambleCount(meta, { provider, model }),
    loadCounter: async () => (await import('../tokens/load-token-counter.js')).loadTokenCounter({ targets: [{ provider, model }] }),
  });
};

/** What an agent's history view is drawn from: its outline and the timeline of its whole path, with its summaries and uncompacts. */
export interface HistoryJsonSources {
  readonly outline: HistoryOutline;
  readonly timeline: HistoryTimelineSource;
}

/**
 * An agent's whole history as `history <agent> --json --all` prints it, but for the window's
 * `messages`, read from the store (nothing is saved beside it: a reader of a live store must not write).
 */
export async function readAgentHistoryJson(store: ConversationStore, agentId: string, planOptions: PlanOptionsOf = storedPlanOptions) {
  const [outline, timeline] = await Promise.all([readHistoryOutline(store, agentId), readHistoryTimeline(store, agentId)]);
  return historyJsonFrom(store, agentId, { outline, timeline }, planOptions);
}

/**
 * An agent's whole history as `history <agent> --json --all` prints it, planned from what was
 * read of it; with a `planner` held from the agent's last plan, from what was added since. The
 * window's `messages` are left out: planned from the outline they are stand-ins, and reading
 * them whole after each write is what the outline spares (the page reads a row's messages itself).
 */
export async function historyJsonFrom(
  store: ConversationStore,
  agentId: string,
  { outline, timeline }: HistoryJsonSources,
  planOptions: PlanOptionsOf = storedPlanOptions,
  planner?: HeldPlanning,
) {
  const planned = await planHistoryView({ ...(await planOptions(outline.meta)), store, agentId, outline, planner });
  const rows = buildHistoryTimeline(agentId, timeline.entries, timeline.forks, planned.exchanges, timeline.summaries);
  const range = { first: 0, count: rows.length, total: rows.length };
  const { messages: _standIns, ...json } = agentHistoryJson(agentId, planned, rows, range, agentWireFormat(outline.meta, planned.plan.provider));
  return json;
}
