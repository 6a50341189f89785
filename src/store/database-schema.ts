import type { ColumnType, Generated } from 'kysely';

/**
 * The tables. Every key leads with `root_id`, the agent tree, so that the schema distributes
 * on Citus by `root_id` unchanged.
 */
export interface AgentsTable {
  root_id: string;
  id: string;
  parent_id: string | null;
  /** The parent's last seq when this agent forked from it. */
  fork_seq: number | null;
  /** Ancestor ids from the root down to the parent. */
  lineage: ColumnType<string[], string, string>;
  last_seq: number;
  meta: ColumnType<Record<string, unknown>, string, string>;
  /** The name the user gave the agent, if any. */
  name: ColumnType<string | null, string | null | undefined, string | null>;
  /** True when `meta`'s strings are escaped (`encodeStoredJson`). */
  meta_escaped: Generated<boolean>;
  /** The chained digest of the messages the agent's model sees now, and how many they are (`prefix-digests.ts`). */
  prefix_digest: Generated<string>;
  prefix_length: Generated<number>;
  created_at: Generated<Date>;
}

export interface MessagesTable {
  root_id: string;
  agent_id: string;
  seq: number;
  kind: string;
  body: ColumnType<unknown, string, string>;
  /** True when `body`'s strings are escaped (`encodeStoredJson`). */
  body_escaped: Generated<boolean>;
  tokens: number | null;
  /** `provider/model` the stored count is for; null when the message was stored uncounted. */
  count_target: string | null;
  count_method: string | null;
  count_exact: boolean | null;
  starts_exchange: boolean;
  /** For a message that starts an exchange: its title (`exchangeTitle`). */
  title: string | null;
  idempotency_key: string | null;
  created_at: Generated<Date>;
}

/** One tool call or tool result of a stored message. */
export interface ToolPartsTable {
  root_id: string;
  agent_id: string;
  seq: number;
  /** The part's index in the message's content. */
  part_index: number;
  type: 'tool-call' | 'tool-result';
  tool_call_id: string;
  tool_name: string;
}

/**
 * A stored message's searchable text, as a `tsvector` (`MESSAGE_SEARCH_VECTOR`): a row written a
 * little after the message's (search-text-fill.ts), never changed.
 */
export interface MessageSearchTable {
  root_id: string;
  agent_id: string;
  seq: number;
  search: ColumnType<string, never, never>;
}

/** The chained digest of the visible history through a stored user message (`prefix-digests.ts`). */
export interface PrefixDigestsTable {
  root_id: string;
  /** The agent that stored the message, and its seq there. */
  agent_id: string;
  seq: number;
  /** Messages in that visible history, the user message included. */
  prefix_length: number;
  digest: string;
}

export interface ContextRangesTable {
  root_id: string;
  agent_id: string;
  id: string;
  kind: string;
  first_agent_id: string | null;
  first_seq: number;
  last_agent_id: string | null;
  last_seq: number;
  body: ColumnType<unknown, string, string>;
  /** True when `body`'s strings are escaped (`encodeStoredJson`). */
  body_escaped: Generated<boolean>;
  created_at: Generated<Date>;
}

/** Kysely's record of applied migrations, read to skip the migrator when nothing is pending. */
export interface MigrationsTable {
  name: string;
}

export interface DatabaseSchema {
  kysely_migration: MigrationsTable;
  agents: AgentsTable;
  messages: MessagesTable;
  message_search: MessageSearchTable;
  context_ranges: ContextRangesTable;
  tool_parts: ToolPartsTable;
  prefix_digests: PrefixDigestsTable;
}
