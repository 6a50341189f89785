/**
 * The store a conversation needs: only the operations `conversation/` calls, so that it depends
 * on this port rather than on the `HistoryStore` class. `HistoryStore` (and a store reached
 * through the process holding it) has all of them; a test may pass anything that does.
 */
import type { Message } from '../message/message.js';
import type {
  AppendOptions,
  AppendResult,
  ContextRange,
  ContextRangeInput,
  HistoryMessageRead,
  HistorySearch,
  HistorySearchHit,
  HistorySearchOptions,
  MessageOutline,
  MessagePosition,
  OutlinedToolPart,
  ReadHistoryMessageOptions,
  OwnRowsRead,
  StoredCount,
  StoredMessage,
  TimelineEntry,
  TimelineFork,
  WindowTail,
} from '../store/history-store-types.js';

export type {
  AppendOptions,
  AppendResult,
  ContextRange,
  ContextRangeInput,
  HistoryMessageRead,
  HistorySearch,
  HistorySearchHit,
  HistorySearchOptions,
  MessageOutline,
  MessagePosition,
  OutlinedToolPart,
  ReadHistoryMessageOptions,
  OwnRowsRead,
  StoredCount,
  StoredMessage,
  TimelineEntry,
  TimelineFork,
  WindowTail,
};

/** The store operations a conversation, its loading and its saved views use. */
export interface ConversationStore {
  /** Creates a root agent and returns its id. */
  createAgent(meta?: Record<string, unknown>, options?: { readonly name?: string | undefined }): Promise<string>;
  /** Forks an agent at its current last seq and returns the child's id. */
  fork(agentId: string, meta?: Record<string, unknown>, options?: { readonly name?: string | undefined }): Promise<string>;
  /** Appends messages in one transaction (optimistic with `expectedLastSeq`). */
  append(agentId: string, messages: readonly Message[], options?: AppendOptions): Promise<AppendResult>;
  /** The history an agent plays, events included. */
  history(agentId: string, options?: { readonly acrossClears?: boolean | undefined }): Promise<StoredMessage[]>;
  /** What a window can hold, read from the newest exchange back. */
  windowTail(
    agentId: string,
    options: { readonly minTokens: number; readonly withFirstExchange: boolean; readonly after?: MessagePosition | undefined },
  ): Promise<WindowTail>;
  /** Which of `positions` lie in what the agent's model sees now. */
  visible(agentId: string, positions: readonly MessagePosition[]): Promise<boolean[]>;
  /** The messages the model sees, without their bodies (see {@link OwnRowsRead} for `options`). */
  outline(agentId: string, options?: OwnRowsRead): Promise<MessageOutline[]>;
  /** Every stored row of the agent's path, without bodies, and the forks along and from it. */
  timeline(
    agentId: string,
    options?: OwnRowsRead & { readonly acrossClears?: boolean | undefined },
  ): Promise<{ entries: TimelineEntry[]; forks: TimelineFork[] }>;
  /** Records ranges the window evicted, readmitted or summarized. */
  recordRanges(agentId: string, ranges: readonly ContextRangeInput[]): Promise<void>;
  /** The ranges recorded for an agent, oldest first (`kind`: one kind, or those listed). */
  ranges(
    agentId: string,
    filter?: { readonly kind?: string | readonly string[] | undefined; readonly inherited?: boolean | undefined },
  ): Promise<ContextRange[]>;
  /** The settings stored with an agent. */
  agentMeta(agentId: string): Promise<Record<string, unknown>>;
  /** Merges `changes` into the settings stored with an agent: a key changed to null is removed. */
  updateAgentMeta(agentId: string, changes: Readonly<Record<string, unknown>>): Promise<void>;
  /** Searches what the agent sees of its history, evicted exchanges included, within a token cap. */
  searchHistory(agentId: string, query: string, options?: HistorySearchOptions): Promise<HistorySearch>;
  /** One message the agent sees, by its seq, as text within a token cap. */
  readHistoryMessage(agentId: string, seq: number, options?: ReadHistoryMessageOptions): Promise<HistoryMessageRead>;
  /** Derives a value and, where the store keeps views, saves it as the agent's view `name`. */
  deriveSavedView<Value>(agentId: string, name: string, derive: () => Promise<Value>, toJson: (value: Value) => unknown): Promise<Value>;
}
