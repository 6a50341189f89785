/** The shapes the page reads from the server's JSON (see src/web/web-api.ts), and how it reads them. */

export interface AgentJson {
  readonly agentId: string;
  readonly parentId: string | null;
  readonly messages: number;
  readonly tokens: number;
  readonly lastActivity: string;
  readonly name: string | null;
  readonly forkSeq: number | null;
  readonly inheritedMessages: number;
  readonly inheritedTokens: number;
  readonly title: string | null;
  readonly provider: string | null;
  readonly model: string | null;
}

/**
 * An exchange row of `/timeline`: 0, its number (null if hidden), title, tools, tokens, state,
 * agent (index into `agents`), first seq, tool outputs cleared.
 */
export type CompactExchangeRow = [0, number | null, string, string[], number, string, number, number, number];
/** An event row of `/timeline`: 1, kind, label, agent (index into `agents`), seq, the fork's child name or id. */
export type CompactEventRow = [1, string, string | null, number, number, string | null];

export interface SummaryJson {
  readonly text: string;
  readonly summarizer: string;
  readonly coveredExchanges: number;
  readonly exchanges: { readonly first: number; readonly last: number } | null;
  readonly tokens: number | null;
  readonly cost: { readonly inputTokens: number; readonly outputTokens: number; readonly usd?: number | null };
  /** What it left out of the model's view when it was made (its loss report); null when none was recorded. */
  readonly dropped?: readonly { readonly kind: string; readonly text: string; readonly exchange: number }[] | null;
}

/** `/api/agents/<id>/timeline`: the history's header figures, its summary and its rows, short. */
export interface TimelineJson {
  readonly agentId: string;
  readonly provider: string;
  readonly model: string;
  readonly budgetTokens: number;
  readonly totalTokens: number;
  readonly pinnedTokens: number;
  readonly evictedExchanges: number;
  readonly exchangeCount: number;
  readonly summary: SummaryJson | null;
  readonly agents: readonly string[];
  readonly rows: readonly (CompactExchangeRow | CompactEventRow)[];
}

/**
 * `/api/agents/<id>/timeline?count=<n>[&first=<row>]`: the same, with only n rows from
 * `firstRow`, and what places them among the others.
 */
export interface TimelineWindowJson extends TimelineJson {
  readonly rowCount: number;
  readonly firstRow: number;
  /** The position of the first exchange the window holds that is not pinned (where the cutoff goes), or -1. */
  readonly cutoffRow: number;
  /** The most tokens of an exchange (at least 1): the bars' scale. */
  readonly maxTokens: number;
  /** For each agent listed, the seq of its first stored row after these (an exchange or an event, not a fork), or null. */
  readonly nextSeqs: readonly (number | null)[];
}

/** `/api/agents/<id>/requests`: the request tokens per turn, as columns (index i is one turn). */
export interface RequestsJson {
  readonly budgetTokens: number;
  readonly turn: readonly number[];
  readonly tokens: readonly number[];
  readonly turnBudgetTokens: readonly number[];
  readonly evictedExchanges: readonly number[];
  readonly summarized: readonly number[];
}

export interface StoredMessageJson {
  readonly agentId: string;
  readonly seq: number;
  readonly message: { readonly role: string; readonly content?: unknown; readonly kind?: string; readonly label?: string };
  readonly count: { readonly tokens: number } | null;
  readonly createdAt: string;
}

/** GETs JSON from the page's own server (the token cookie goes with it). */
export async function getJson<Value>(path: string): Promise<Value> {
  const response = await fetch(path, { credentials: 'same-origin', headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Value;
}

export const agentPath = (agentId: string) => `/api/agents/${encodeURIComponent(agentId)}`;
