import type { StoreCommandFlags, TargetFlags } from '../command-flags.js';
import type { HistoryFlags } from './store-command-lines.js';
import { agentSettings, storedPreambleCount } from '../../conversation/agent-settings.js';
import { storedSyntheticResults } from '../../conversation/synthetic-result-counts.js';
import {
  type OutlinePlanOptions,
  planHistoryView,
  planOutlinedHistory,
  type PlannedHistory,
  planStoredHistory,
} from '../../conversation/exchange-history.js';
import { preambleAfterClear } from '../../conversation/preamble-after-clear.js';
import { HISTORY_OUTLINE_VIEW, historyOutlineFromJson, saveHistoryOutline } from '../../conversation/history-outline.js';
import { isSlidingContextError, SlidingContextError } from '../../errors/sliding-context-error.js';
import { findRewindTarget } from '../../message/apply-events.js';
import type { Message } from '../../message/message.js';
import type { HistoryStore } from '../../store/history-store.js';
import { readSavedView } from '../../store/saved-views.js';
import { describeStoreFailure } from '../../store/store-open-error.js';
import { DEFAULT_PROVIDER, defaultModelFor } from '../../tokens/default-target.js';
import { validateWindowPolicy } from '../../window/window-policy.js';
import { resolveCliBudget } from '../resolve-cli-budget.js';
import type { CliIo } from '../cli-io.js';
import { requireAgentName } from '../agent-name-option.js';
import { loadCliCounter } from '../load-cli-counter.js';
import { cliStoreLocation, withCliStore } from '../open-cli-store.js';
import { neutralizeControlCharacters } from '../render/neutralize-control-characters.js';
import { renderAgentsTable } from '../render/agents-table.js';
import { markLabelText } from '../render/marks-list.js';
import { renderHistoryTimelineReport } from '../render/history-timeline-report.js';
import { buildHistoryTimeline, recentTimelineRows } from '../../conversation/history-timeline.js';
import { HISTORY_TIMELINE_VIEW, historyTimelineFromJson, type HistoryTimelineSource, saveHistoryTimeline } from '../../conversation/saved-history-timeline.js';
import { historyRowLimits, type HistoryRowLimits, sliceHistoryRows } from './history-row-limits.js';
import { formatCount } from '../render/format-count.js';
import { renderHistoryReport } from '../render/history-report.js';
import { renderLossRecords } from '../render/loss-report-text.js';
import { storedPinLines } from '../render/pins-list.js';
import { agentHistoryJson } from '../../views/agent-history-json.js';
import { agentWireFormat } from '../../views/agent-wire-format.js';
import { agentExchangeNumbering } from '../../views/agent-window-json.js';
import { summaryView } from '../../views/summary-view.js';

export type { StoreCommandFlags, TargetFlags } from '../command-flags.js';

/** Prints `data` as JSON with `--json`, else `text` with its control characters shown, not sent. */
export const print = (io: CliIo, json: boolean | undefined, data: unknown, text: string) =>
  io.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : `${neutralizeControlCharacters(text)}\n`);

/**
 * `agents`: every agent as a fork tree under a header, with its name, model, title, messages
 * (inherited ones included), tokens and last activity.
 */
export async function runAgentsCommand(flags: StoreCommandFlags, io: CliIo): Promise<void> {
  await withCliStore(io, flags, async (store) => {
    const agents = await store.listAgents();
    print(io, flags.json, agents, renderAgentsTable(agents, new Date()));
  }, { create: false });
}

/** The model an agent is counted for (the flags', else the one it was stored for) and its settings. */
export async function agentTarget(io: CliIo, store: HistoryStore, agentId: string, flags: TargetFlags) {
  return targetOfMeta(io, await store.agentMeta(agentId), flags);
}

/** {@link agentTarget} from the agent's stored meta. */
async function targetOfMeta(io: CliIo, meta: Readonly<Record<string, unknown>>, flags: TargetFlags) {
  const storedProvider = typeof meta.provider === 'string' ? meta.provider : DEFAULT_PROVIDER;
  const provider = flags.provider ?? storedProvider;
  // The agent's model is its provider's: another provider named alone gets that provider's default.
  const storedModel = typeof meta.model === 'string' && provider === storedProvider ? meta.model : undefined;
  const model = flags.model ?? storedModel ?? defaultModelFor(provider);
  // The agent's own budget unless one is given now.
  const budgetTokens = await resolveCliBudget(io, flags.budget, { provider, model });
  const policy = flags.policy === undefined ? undefined : validateWindowPolicy(flags.policy, '--policy');
  return { meta, provider, model, settings: { ...agentSettings(meta, { budgetTokens }), policy } };
}

/**
 * The window over an agent's whole history, for the model and budget the flags give (else the
 * agent's own). Counts stored for that model are used as they are: no tokenizer is loaded
 * unless one is missing.
 */
export async function planAgentHistory(io: CliIo, store: HistoryStore, agentId: string, flags: TargetFlags) {
  const meta = await store.agentMeta(agentId);
  const options = { ...(await outlinePlanOptions(io, meta, flags)), store, agentId };
  return { ...(await planStoredHistory(options)), settings: options, meta };
}

/** What planning an agent's history takes, from its stored meta and the flags. */
async function outlinePlanOptions(io: CliIo, meta: Readonly<Record<string, unknown>>, flags: TargetFlags): Promise<OutlinePlanOptions> {
  const { provider, model, settings } = await targetOfMeta(io, meta, flags);
  return {
    ...settings,
    provider,
    model,
    preambleCount: storedPreambleCount(meta, { provider, model }),
    syntheticResults: storedSyntheticResults(meta, { provider, model }),
    loadCounter: () => loadCliCounter(io, provider, model),
  };
}

/**
 * The saved outline of an agent, read under the directory lock, which a folder not writable
 * refuses; none while another process holds the directory (the store is read through it).
 */
function readSavedViewOrFail(dataDir: string, view: string, agentId: string): unknown {
  try {
    return readSavedView(dataDir, view, agentId);
  } catch (error) {
    if (isSlidingContextError(error, 'STORE_LOCKED')) return undefined;
    throw describeStoreFailure(error, { dataDir });
  }
}

/**
 * `history <agent>`: the exchanges out of and in the window, with the rule between them. Planned
 * from the agent's outline (no bodies, no tokenizer while the counts are stored for its model).
 * On a PGlite directory the outline is saved beside it, so that the next `history` before any
 * write reads it without starting the database.
 */
export async function runHistoryCommand(
  agentId: string,
  flags: HistoryFlags,
  io: CliIo,
): Promise<void> {
  const rows = historyRowLimits(flags);
  const location = cliStoreLocation(io, flags, { create: false });
  const saved = 'dataDir' in location ? historyOutlineFromJson(readSavedViewOrFail(location.dataDir, HISTORY_OUTLINE_VIEW, agentId)) : undefined;
  const savedTimeline = 'dataDir' in location ? historyTimelineFromJson(readSavedViewOrFail(location.dataDir, HISTORY_TIMELINE_VIEW, agentId)) : undefined;
  // The JSON holds the window's messages whole: their bodies are in the store, not beside it.
  const fromSaved = saved && savedTimeline && flags.json !== true
    ? await planOutlinedHistory(saved, await outlinePlanOptions(io, saved.meta, flags))
    : undefined;
  if (saved && fromSaved && savedTimeline) {
    printHistory(io, { agentId, meta: saved.meta }, flags, rows, fromSaved, savedTimeline);
    return;
  }
  await withCliStore(io, flags, async (store) => {
    const outline = await saveHistoryOutline(store, agentId);
    const timeline = await saveHistoryTimeline(store, agentId);
    const planned = await planHistoryView({ ...(await outlinePlanOptions(io, outline.meta, flags)), store, agentId, outline, wholeMessages: flags.json });
    printHistory(io, { agentId, meta: outline.meta }, flags, rows, planned, timeline);
  }, { create: false });
}

function printHistory(
  io: CliIo,
  { agentId, meta }: { readonly agentId: string; readonly meta: Readonly<Record<string, unknown>> },
  flags: HistoryFlags,
  limits: HistoryRowLimits,
  planned: PlannedHistory,
  source: HistoryTimelineSource,
): void {
  const { plan, exchanges, summary, cache, pins } = planned;
  const every = buildHistoryTimeline(agentId, source.entries, source.forks, exchanges, source.summaries);
  const recent = flags.all === true ? { rows: every, earlier: 0 } : recentTimelineRows(every);
  const { rows, offset } = sliceHistoryRows(recent.rows, limits);
  if (flags.json) {
    const range = { first: recent.earlier + offset, count: rows.length, total: every.length };
    const json = agentHistoryJson(agentId, planned, rows, range, agentWireFormat(meta, plan.provider));
    io.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
    return;
  }
  const now = new Date();
  const losses = renderLossRecords(planned.losses ?? [], { all: flags.all === true, now });
  io.stdout.write(
    renderHistoryTimelineReport({
      agentId,
      plan,
      rows,
      offset: recent.earlier + offset,
      offsetBeforeRange: recent.earlier,
      total: every.length,
      all: flags.all === true,
      summary: summary && summaryView(summary, exchanges),
      exchangesIn: exchanges.filter((exchange) => exchange.inWindow).length,
      exchangesOut: exchanges.filter((exchange) => !exchange.inWindow).length,
      now,
      color: io.stdoutIsTerminal === true && io.env.NO_COLOR === undefined,
      cache,
      numberOf: agentExchangeNumbering(exchanges),
      pins: storedPinLines(pins ?? [], agentId),
    }) + (losses.length > 0 ? `\n${losses.join('\n')}\n` : ''),
  );
}

/** The `/history` view of an agent as text, with the summary in force. */
export function renderAgentHistory(agentId: string, { plan, exchanges, summary, cache, pins }: PlannedHistory): string {
  return renderHistoryReport(agentId, plan, exchanges, new Date(), summary && summaryView(summary, exchanges), cache, storedPinLines(pins ?? [], agentId));
}

/**
 * `fork`, `clear`, `mark`, `rewind`: events in an agent's history. The store saves the outline of
 * the agent it leaves (the child, for a fork) as it closes, so that `history` after it starts
 * without the database.
 */
export async function runAgentEventCommand(
  action: 'fork' | 'clear' | 'mark' | 'rewind',
  agentId: string,
  label: string | undefined,
  flags: StoreCommandFlags & { readonly name?: string | undefined },
  io: CliIo,
): Promise<void> {
  if (label !== undefined && label.trim() === '') {
    throw new SlidingContextError('INVALID_OPTION', `${action}: the label is empty; give a label with at least one visible character, e.g. before-refactor.`);
  }
  requireAgentName(flags.name, action);
  await withCliStore(io, flags, async (store) => {
    if (action === 'fork') {
      const child = await store.fork(agentId, {}, { name: flags.name });
      print(io, flags.json, { agentId: child }, child);
      return;
    }
    const message: Message = action === 'clear' ? { role: 'event', kind: action } : { role: 'event', kind: action, ...(label === undefined ? {} : { label }) };
    if (action === 'rewind') {
      // A rewind must name a reachable mark: check before writing.
      const { marks } = await store.windowTail(agentId, { minTokens: 0, withFirstExchange: false });
      findRewindTarget(marks.map((mark) => ({ label: mark, position: 0 })), label, `rewind "${String(label)}" for ${agentId}`);
    }
    // A clear keeps the system messages the history starts with: they are stored again after it.
    const kept = action === 'clear' ? await preambleAfterClear(store, agentId) : undefined;
    const counts = kept?.countTarget ? { counts: [null, ...kept.counts], countTarget: kept.countTarget } : {};
    const { firstSeq } = await store.append(agentId, [message, ...(kept?.messages ?? [])], counts);
    const keptCount = kept?.messages.length ?? 0;
    const note = keptCount > 0 ? ` (${formatCount(keptCount, 'leading system message')} kept after it)` : '';
    const json = { agentId, seq: firstSeq, event: action, ...(label === undefined ? {} : { label }), ...(kept ? { keptSystemMessages: keptCount } : {}) };
    print(io, flags.json, json, `${action}${label === undefined ? '' : ` ${markLabelText(label)}`} recorded for ${agentId} at seq ${firstSeq}${note}`);
    // The agent must exist already: a store is never created for it.
  }, { create: false });
}
