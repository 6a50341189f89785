import { agentSettings, storedPreambleCount } from '../../conversation/agent-settings.js';
import type { StoredSummary } from '../../condense/stored-summary.js';
import {
  type ExchangeHistory,
  type OutlinePlanOptions,
  planHistoryView,
  planOutlinedHistory,
  type PlannedHistory,
  planStoredHistory,
} from '../../conversation/exchange-history.js';
import { HISTORY_OUTLINE_VIEW, historyOutlineFromJson, saveHistoryOutline, saveHistoryOutlineAfterWrite } from '../../conversation/history-outline.js';
import { findRewindTarget } from '../../message/apply-events.js';
import type { Message } from '../../message/message.js';
import type { HistoryStore } from '../../store/history-store.js';
import { readSavedView } from '../../store/saved-views.js';
import { validateWindowPolicy } from '../../window/window-policy.js';
import { resolveCliBudget } from '../resolve-cli-budget.js';
import type { CliIo } from '../cli-io.js';
import { loadCliCounter } from '../load-cli-counter.js';
import { cliStoreLocation, type StoreFlags, withCliStore } from '../open-cli-store.js';
import { formatAge } from '../render/format-age.js';
import { formatNumber } from '../render/format-number.js';
import { renderHistoryReport, type SummaryView } from '../render/history-report.js';
import { toWindowJson } from '../render/window-json.js';

/** Flags shared by the store commands. */
export interface StoreCommandFlags extends StoreFlags {
  readonly json?: boolean | undefined;
}

/** Flags that choose the model and budget an agent is counted for. */
export interface TargetFlags {
  readonly provider?: string | undefined;
  readonly model?: string | undefined;
  readonly budget?: string | undefined;
  /** A policy name, or a policy object from the config file. */
  readonly policy?: unknown;
}

export const print = (io: CliIo, json: boolean | undefined, data: unknown, text: string) =>
  io.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : `${text}\n`);

/** `agents`: every agent with its message count, tokens and last activity. */
export async function runAgentsCommand(flags: StoreCommandFlags, io: CliIo): Promise<void> {
  await withCliStore(io, flags, async (store) => {
    const agents = await store.listAgents();
    const now = new Date();
    const lines = agents.map((agent) =>
      [agent.agentId.padEnd(74), `${formatNumber(agent.messages)} messages`.padStart(16), `${formatNumber(agent.tokens)} tokens`.padStart(16), formatAge(agent.lastActivity, now)].join('  '),
    );
    print(io, flags.json, agents, lines.length > 0 ? lines.join('\n') : '(no agents yet)');
  }, { create: false });
}

/** The model an agent is counted for (the flags', else the one it was stored for) and its settings. */
export async function agentTarget(io: CliIo, store: HistoryStore, agentId: string, flags: TargetFlags) {
  return targetOfMeta(io, await store.agentMeta(agentId), flags);
}

/** {@link agentTarget} from the agent's stored meta. */
async function targetOfMeta(io: CliIo, meta: Readonly<Record<string, unknown>>, flags: TargetFlags) {
  const provider = flags.provider ?? (typeof meta.provider === 'string' ? meta.provider : 'openai');
  const model = flags.model ?? (typeof meta.model === 'string' ? meta.model : 'gpt-4o');
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
  const options = await storedHistoryOptions(io, store, agentId, flags);
  return { ...(await planStoredHistory(options)), settings: options };
}

async function storedHistoryOptions(io: CliIo, store: HistoryStore, agentId: string, flags: TargetFlags) {
  return { ...(await outlinePlanOptions(io, await store.agentMeta(agentId), flags)), store, agentId };
}

/** What planning an agent's history takes, from its stored meta and the flags. */
async function outlinePlanOptions(io: CliIo, meta: Readonly<Record<string, unknown>>, flags: TargetFlags): Promise<OutlinePlanOptions> {
  const { provider, model, settings } = await targetOfMeta(io, meta, flags);
  return {
    ...settings,
    provider,
    model,
    preambleCount: storedPreambleCount(meta, { provider, model }),
    loadCounter: () => loadCliCounter(io, provider, model),
  };
}

/**
 * `history <agent>`: the exchanges out of and in the window, with the rule between them. Planned
 * from the agent's outline (no bodies, no tokenizer while the counts are stored for its model).
 * On a PGlite directory the outline is saved beside it, so that the next `history` before any
 * write reads it without starting the database.
 */
export async function runHistoryCommand(
  agentId: string,
  flags: StoreCommandFlags & TargetFlags,
  io: CliIo,
): Promise<void> {
  const location = cliStoreLocation(io, flags, { create: false });
  const saved = 'dataDir' in location ? historyOutlineFromJson(readSavedView(location.dataDir, HISTORY_OUTLINE_VIEW, agentId)) : undefined;
  const fromSaved = saved && (await planOutlinedHistory(saved, await outlinePlanOptions(io, saved.meta, flags)));
  if (fromSaved) {
    printHistory(io, agentId, flags, fromSaved);
    return;
  }
  await withCliStore(io, flags, async (store) => {
    const outline = await saveHistoryOutline(store, agentId);
    printHistory(io, agentId, flags, await planHistoryView({ ...(await outlinePlanOptions(io, outline.meta, flags)), store, agentId, outline }));
  }, { create: false });
}

function printHistory(io: CliIo, agentId: string, flags: StoreCommandFlags, { plan, exchanges, summary }: PlannedHistory): void {
  if (flags.json) {
    const json = toWindowJson(plan, 'neutral', undefined);
    // The plan's exchanges are those not summarized, in order; summarized ones have no place in it.
    const planned = [...plan.exchanges];
    const described = exchanges.map(({ index, title, tools, tokens, inWindow, pinned, createdAt, summarized }) => {
      const exchange = summarized ? undefined : planned.shift();
      return { ...(exchange ?? {}), index, tokens, inWindow, pinned, summarized, title, tools, createdAt };
    });
    io.stdout.write(`${JSON.stringify({ ...json, agentId, exchanges: described, summary: summary ? summaryJson(summary, exchanges) : null, request: undefined }, null, 2)}\n`);
    return;
  }
  io.stdout.write(renderAgentHistory(agentId, { plan, exchanges, summary }));
}

/** The `/history` view of an agent as text, with the summary in force. */
export function renderAgentHistory(agentId: string, { plan, exchanges, summary }: PlannedHistory): string {
  return renderHistoryReport(agentId, plan, exchanges, new Date(), summary && summaryJson(summary, exchanges));
}

/** The summary in force as `history` shows it: what it says, what it covers, what it cost. */
function summaryJson(summary: StoredSummary, exchanges: readonly ExchangeHistory[]): SummaryView {
  const summarized = exchanges.filter((exchange) => exchange.summarized);
  const covered = summarized.map((exchange) => exchange.index);
  const start = summarized[0];
  return {
    text: summary.data.text,
    summarizer: summary.data.summarizer,
    coveredExchanges: summary.data.coveredExchanges,
    exchanges: covered.length > 0 ? { first: Math.min(...covered), last: Math.max(...covered) } : null,
    // A rolling summary covers everything from its first exchange on, not only its own range.
    messages: { first: start ? { agentId: start.agentId, seq: start.firstSeq } : summary.first, last: summary.last },
    tokens: typeof summary.data.tokens === 'number' ? summary.data.tokens : null,
    cost: summary.data.cost,
    createdAt: summary.createdAt,
  };
}

/**
 * `fork`, `clear`, `mark`, `rewind`: events in an agent's history. Each saves the outline of the
 * agent it leaves (the child, for a fork), so that `history` after it starts without the database.
 */
export async function runAgentEventCommand(
  action: 'fork' | 'clear' | 'mark' | 'rewind',
  agentId: string,
  label: string | undefined,
  flags: StoreCommandFlags,
  io: CliIo,
): Promise<void> {
  await withCliStore(io, flags, async (store) => {
    if (action === 'fork') {
      const child = await store.fork(agentId);
      await saveHistoryOutlineAfterWrite(store, child);
      print(io, flags.json, { agentId: child }, child);
      return;
    }
    const message: Message = action === 'clear' ? { role: 'event', kind: action } : { role: 'event', kind: action, ...(label === undefined ? {} : { label }) };
    if (action === 'rewind') {
      // A rewind must name a reachable mark: check before writing.
      const { marks } = await store.windowTail(agentId, { minTokens: 0, withFirstExchange: false });
      findRewindTarget(marks.map((mark) => ({ label: mark, position: 0 })), label, `rewind "${String(label)}" for ${agentId}`);
    }
    const { lastSeq } = await store.append(agentId, [message]);
    await saveHistoryOutlineAfterWrite(store, agentId);
    print(io, flags.json, { agentId, seq: lastSeq, event: action, ...(label === undefined ? {} : { label }) }, `${action}${label === undefined ? '' : ` "${label}"`} recorded for ${agentId} at seq ${lastSeq}`);
  });
}
