/**
 * `sliding-context/store`: the full history in PostgreSQL or an embedded PGlite directory, and the
 * conversation that keeps its window over it.
 */
export {
  type CompactOptions,
  type CompactResult,
  type CondenseOptions,
  Conversation,
  type ConversationEvent,
  type ConversationListener,
  type ConversationReport,
  type ExchangeHistory,
  type OpenConversationOptions,
  openConversation,
  type RecallOptions,
  type RequestOptions,
  type SendOptions,
  type UncompactedSummary,
  type UncompactResult,
} from '../conversation/conversation.js';
export { activeSummary, type StoredSummary } from '../conversation/active-summary.js';
export { READ_HISTORY_TOOL, RECALL_TOOL_DEFINITIONS, recallToolResult, SEARCH_HISTORY_TOOL } from '../conversation/recall-tools.js';
export { type PinHistory, planStoredHistory, type StoredHistoryOptions } from '../conversation/exchange-history.js';
export type { PinCheck } from '../conversation/conversation-options.js';
export { type AgentKey, formatAgentId, parseAgentId } from './agent-id.js';
export { defaultDataDir } from './default-data-dir.js';
export {
  type AgentSummary,
  type AppendResult,
  type ContextRange,
  type ContextRangeInput,
  type HistoryMessageRead,
  type HistorySearch,
  type HistorySearchHit,
  type HistorySearchOptions,
  HistoryStore,
  type MessagePosition,
  type ReadHistoryMessageOptions,
  type PrefixMatch,
  type StoredCount,
  type StoredMessage,
  type WindowTail,
} from './history-store.js';
export type { StoreLocation } from './open-database.js';
export type { WriteListener } from './write-notifications.js';
export {
  importConversation,
  type ImportOptions,
  type ImportProgress,
  type ImportResult,
} from '../import/import-conversation.js';
export { type ImportedConversation, type ImportFormat, type ImportSource, readImportInput } from '../import/read-import-input.js';
export type { BrokenLine, TranscriptFormat } from '../sources/transcript.js';
