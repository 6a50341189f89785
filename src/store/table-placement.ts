import type { DatabaseSchema } from './database-schema.js';

/** The column every distributed table is distributed by: the id of the agent tree a row belongs to. */
export const DISTRIBUTION_COLUMN = 'root_id';

/**
 * Where each table lives on Citus. `distributed`: sharded by {@link DISTRIBUTION_COLUMN}, all
 * colocated, so that one agent tree (a root and its forks) lies on one node. `coordinator`: the
 * migrator's bookkeeping, a plain table on the coordinator, never joined with the others.
 * Typed over the schema, so that a new table cannot be left unplaced.
 */
export const TABLE_PLACEMENT = {
  agents: 'distributed',
  messages: 'distributed',
  message_search: 'distributed',
  tool_parts: 'distributed',
  context_ranges: 'distributed',
  prefix_digests: 'distributed',
  kysely_migration: 'coordinator',
  kysely_migration_lock: 'coordinator',
} as const satisfies Record<keyof DatabaseSchema | 'kysely_migration_lock', 'distributed' | 'coordinator'>;
