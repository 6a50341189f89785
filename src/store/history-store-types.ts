/** The shapes `HistoryStore` takes and gives: stored messages, ranges, outlines, timelines, agents. */
import type { Message } from '../message/message.js';
import type { CountTarget, TokenCount } from '../tokens/token-counter.js';

/** A token count as stored with a message: the count and the `provider/model` it is for. */
export interface StoredCount extends TokenCount {
  readonly target: string;
}

/** A message as stored: its place in its agent's history and when it was written. */
export interface StoredMessage {
  readonly agentId: string;
  readonly seq: number;
  readonly message: Message;
  /** The message's count when it was stored, for the model it was counted for. */
  readonly count: StoredCount | null;
  readonly createdAt: Date;
}

/** A stored message's place: the agent that wrote it and its seq there. */
export interface MessagePosition {
  readonly agentId: string;
  readonly seq: number;
}

/** A range of history the window acted on, as recorded. */
export interface ContextRangeInput {
  /** `evicted`, `readmitted`, `summary`, or `uncompact` (a summary set aside: the same range as it). */
  readonly kind: string;
  readonly first: MessagePosition;
  readonly last: MessagePosition;
  readonly data?: Record<string, unknown> | undefined;
}

/** A recorded range. */
export interface ContextRange extends ContextRangeInput {
  readonly data: Record<string, unknown>;
  readonly createdAt: Date;
}

/** A tool call or result as {@link MessageOutline} gives it. */
export interface OutlinedToolPart {
  readonly partIndex: number;
  readonly type: 'tool-call' | 'tool-result';
  readonly toolCallId: string;
  readonly toolName: string;
}

/** A stored message the model sees, without its body: what `HistoryStore.outline` reads. */
export interface MessageOutline {
  readonly agentId: string;
  readonly seq: number;
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly count: StoredCount | null;
  readonly createdAt: Date;
  /** For a message that starts an exchange: its `exchangeTitle`; otherwise null. */
  readonly title: string | null;
  /** Its tool calls and tool results, in content order. */
  readonly toolParts: readonly OutlinedToolPart[];
}

/** What `HistoryStore.windowTail` read. */
export interface WindowTail {
  /** The messages the model sees before the first exchange (leading system messages), and the
   * first exchange itself when it was asked for. */
  readonly head: readonly StoredMessage[];
  /** The newest whole exchanges, oldest first, after any the head holds. */
  readonly tail: readonly StoredMessage[];
  /** True when nothing the model sees was left unread. */
  readonly complete: boolean;
  /** The agent's own last seq the read was made at: an append expecting it fails if another writer came first. */
  readonly lastSeq: number;
  /** Labels of the marks a rewind can still reach, oldest first (undefined for unlabelled ones). */
  readonly marks: readonly (string | undefined)[];
  /** How many pin and unpin events lie in what the model sees (none when absent): with any, the whole history is read to place the pins. */
  readonly pinEvents?: number | undefined;
}

/** Options of `HistoryStore.append`. */
export interface AppendOptions {
  /** Append only if the agent's last seq is still this one; otherwise `STALE_WINDOW`. */
  readonly expectedLastSeq?: number | undefined;
  /** A retry with a key already stored writes nothing and answers `duplicate: true`. */
  readonly idempotencyKey?: string | undefined;
  /** Each message's count (null for events), made for `countTarget`. */
  readonly counts?: readonly (TokenCount | null)[] | undefined;
  readonly countTarget?: CountTarget | undefined;
  /** Called as rows are written, for progress on large appends. */
  readonly onProgress?: ((written: number, total: number) => void) | undefined;
  /** Aborting it before the append commits rolls it back: nothing is stored, and it fails with `ABORTED`. */
  readonly signal?: AbortSignal | undefined;
  /** When each message was first written (undefined: now), for a history brought back from an export. */
  readonly createdAt?: readonly (Date | undefined)[] | undefined;
  /**
   * Pins every model message of the append: a `pin` event for each is stored after them. Each
   * must be text (see `pinnedText`), and the append may hold no clear or rewind.
   */
  readonly pinned?: boolean | undefined;
  /** Ranges recorded in the append's transaction, after its messages (as `recordRanges` records them). */
  readonly ranges?: readonly ContextRangeInput[] | undefined;
}

/** What `append` wrote. */
export interface AppendResult {
  readonly firstSeq: number;
  readonly lastSeq: number;
  /** True when the idempotency key had been seen: nothing new was written. */
  readonly duplicate: boolean;
}

/** One line of `agents`. */
export interface AgentSummary {
  readonly agentId: string;
  readonly parentId: string | null;
  /** Messages (events included) the agent stored itself. */
  readonly messages: number;
  /** Stored tokens of the messages it stored itself. */
  readonly tokens: number;
  readonly lastActivity: Date;
  /** The name the user gave it, or null. */
  readonly name: string | null;
  /** The parent's seq it forked at (null for a root). */
  readonly forkSeq: number | null;
  /** Messages it sees from its ancestors, up to the forks that lead to it. */
  readonly inheritedMessages: number;
  /** Stored tokens of those inherited messages. */
  readonly inheritedTokens: number;
  /** The title of the first exchange it plays (its ancestors' first, for a fork), or null. */
  readonly title: string | null;
  readonly provider: string | null;
  readonly model: string | null;
}

/** A stored row of an agent's path, without its body: what `HistoryStore.timeline` reads. */
export interface TimelineEntry {
  readonly agentId: string;
  readonly seq: number;
  /** The role of a model message, or the event's kind. */
  readonly kind: string;
  /** An event's label (marks and rewinds). */
  readonly label: string | null;
  readonly tokens: number | null;
  readonly createdAt: Date;
  readonly startsExchange: boolean;
  readonly title: string | null;
  /** Names of its tool calls, in content order. */
  readonly toolNames: readonly string[];
}

/** A fork along or from an agent's path, as `HistoryStore.timeline` gives it. */
export interface TimelineFork {
  /** The agent forked from, and its seq the child forked at. */
  readonly parentId: string;
  readonly seq: number;
  readonly childId: string;
  readonly childName: string | null;
  readonly createdAt: Date;
}

/** One message a history search found. */
export interface HistorySearchHit {
  /** The agent that stored it: the one searched, or an ancestor whose history it inherits. */
  readonly agentId: string;
  readonly seq: number;
  /** Its exchange, numbered as `history` numbers them (0: the first since the latest clear); null before the first exchange. */
  readonly exchange: number | null;
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  /** The tools it calls or answers, in content order. */
  readonly toolNames: readonly string[];
  /** Its text around the first word of the query found: a few lines at most. */
  readonly excerpt: string;
  readonly createdAt: Date;
}

/** Options of `HistoryStore.searchHistory`. */
export interface HistorySearchOptions {
  /** The most tokens the hits may take, estimated as UTF-8 bytes / 4 of each hit as JSON (default 4,000). */
  readonly maxTokens?: number | undefined;
  /** The most hits (default 20). */
  readonly limit?: number | undefined;
}

/** What `HistoryStore.searchHistory` found. */
export interface HistorySearch {
  readonly agentId: string;
  readonly query: string;
  /** The best matches first (PostgreSQL's `ts_rank`), the newer first among equals. */
  readonly hits: readonly HistorySearchHit[];
  /** False when more messages match than `hits` holds (over `limit`, or over `maxTokens`). */
  readonly complete: boolean;
  /** Estimated tokens of the hits (UTF-8 bytes / 4 of each as JSON). */
  readonly tokens: number;
  readonly maxTokens: number;
}

/** Options of `HistoryStore.readHistoryMessage`. */
export interface ReadHistoryMessageOptions {
  /** The most tokens of text given back, estimated as UTF-8 bytes / 4 (default 4,000); longer text is cut, with a marker. */
  readonly maxTokens?: number | undefined;
  /** The agent that stored the message, when it is an ancestor's (`message 3 of agent …`); default: the agent itself. */
  readonly storedBy?: string | undefined;
}

/** One stored message read back whole (up to a cap) by `HistoryStore.readHistoryMessage`. */
export interface HistoryMessageRead {
  /** The agent that stored it. */
  readonly agentId: string;
  readonly seq: number;
  /** Its exchange, numbered as `history` numbers them; null before the first exchange. */
  readonly exchange: number | null;
  readonly role: Message['role'];
  readonly createdAt: Date;
  /** Its text (`messageText`), cut at the cap with a marker saying so. */
  readonly text: string;
  /** Estimated tokens of its whole text (UTF-8 bytes / 4). */
  readonly tokens: number;
  /** True when `text` was cut at the cap. */
  readonly truncated: boolean;
}

/** The stored conversation a request's messages belong to, by the prefix rule. */
export interface PrefixMatch {
  readonly agentId: string;
  /** Leading messages of the request the agent's visible history holds. */
  readonly shared: number;
  /** Messages of the agent's visible history. */
  readonly storedLength: number;
}

/**
 * How much of an agent's path a read covers: its own rows up to `lastSeq` (default: its last seq
 * now) and, with `afterSeq`, only its own rows after that seq (what was appended since an earlier
 * read; the forks a timeline lists are still all of them).
 */
export interface OwnRowsRead {
  readonly afterSeq?: number | undefined;
  readonly lastSeq?: number | undefined;
}
