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

export interface ExchangeRowJson {
  readonly type: 'exchange';
  readonly index: number | null;
  readonly title: string;
  readonly tools: readonly string[];
  readonly tokens: number;
  readonly inWindow: boolean;
  readonly pinned: boolean;
  readonly outOfWindow: 'evicted' | 'summarized' | 'cleared' | 'rewound' | null;
  readonly agentId: string;
  readonly firstSeq: number;
  readonly createdAt: string;
}

export interface EventRowJson {
  readonly type: 'event';
  readonly kind: 'clear' | 'mark' | 'rewind' | 'fork';
  readonly label: string | null;
  readonly agentId: string;
  readonly seq: number;
  readonly createdAt: string;
  readonly fork?: { readonly childId: string; readonly childName: string | null; readonly direction: string };
}

export type TimelineRowJson = ExchangeRowJson | EventRowJson;

export interface SummaryJson {
  readonly text: string;
  readonly summarizer: string;
  readonly coveredExchanges: number;
  readonly exchanges: { readonly first: number; readonly last: number } | null;
  readonly tokens: number | null;
  readonly cost: { readonly inputTokens: number; readonly outputTokens: number; readonly usd?: number | null };
}

export interface HistoryJson {
  readonly agentId: string;
  readonly provider: string;
  readonly model: string;
  readonly budgetTokens: number;
  readonly totalTokens: number;
  readonly pinnedTokens: number;
  readonly cutoffMessage: number | null;
  readonly evictedExchanges: number;
  readonly exchanges: readonly { readonly index: number; readonly firstMessage?: number; readonly lastMessage?: number }[];
  readonly clearedToolOutputs: readonly { readonly messageIndex: number; readonly toolName: string; readonly tokens: number }[];
  readonly summary: SummaryJson | null;
  readonly timeline: readonly TimelineRowJson[];
}

export interface RequestPointJson {
  readonly turn: number;
  readonly tokens: number;
  readonly budgetTokens: number;
  readonly evictedExchanges: number;
  readonly summarized: boolean;
}

export interface RequestsJson {
  readonly budgetTokens: number;
  readonly points: readonly RequestPointJson[];
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
