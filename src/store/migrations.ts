import { type Kysely, type Migration, type MigrationProvider, sql } from 'kysely';

/**
 * Versioned migrations, run on open. Portable SQL only: no SERIAL or identity columns, no
 * triggers, no advisory locks (Kysely's migrator locks with a row), UUIDs made by the application.
 */
const migrations: Record<string, Migration> = {
  '2026-11-21-001-initial': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('agents')
        .addColumn('root_id', 'uuid', (column) => column.notNull())
        .addColumn('id', 'uuid', (column) => column.notNull())
        .addColumn('parent_id', 'uuid')
        .addColumn('fork_seq', 'integer')
        .addColumn('lineage', 'jsonb', (column) => column.notNull().defaultTo(sql`'[]'::jsonb`))
        .addColumn('last_seq', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('meta', 'jsonb', (column) => column.notNull().defaultTo(sql`'{}'::jsonb`))
        .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
        .addPrimaryKeyConstraint('agents_pkey', ['root_id', 'id'])
        .execute();
      await db.schema
        .createTable('messages')
        .addColumn('root_id', 'uuid', (column) => column.notNull())
        .addColumn('agent_id', 'uuid', (column) => column.notNull())
        .addColumn('seq', 'integer', (column) => column.notNull())
        .addColumn('kind', 'text', (column) => column.notNull())
        .addColumn('body', 'jsonb', (column) => column.notNull())
        .addColumn('tokens', 'integer')
        .addColumn('starts_exchange', 'boolean', (column) => column.notNull().defaultTo(false))
        .addColumn('idempotency_key', 'text')
        .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
        .addPrimaryKeyConstraint('messages_pkey', ['root_id', 'agent_id', 'seq'])
        .execute();
      await db.schema
        .createIndex('messages_idempotency')
        .on('messages')
        .columns(['root_id', 'agent_id', 'idempotency_key'])
        .unique()
        .where(sql.ref('idempotency_key'), 'is not', null)
        .execute();
      await db.schema
        .createIndex('messages_exchange_starts')
        .on('messages')
        .columns(['root_id', 'agent_id', 'seq'])
        .where(sql.ref('starts_exchange'), '=', true)
        .execute();
      await db.schema
        .createIndex('messages_clears')
        .on('messages')
        .columns(['root_id', 'agent_id', 'seq'])
        .where(sql.ref('kind'), '=', 'clear')
        .execute();
      await db.schema
        .createTable('context_ranges')
        .addColumn('root_id', 'uuid', (column) => column.notNull())
        .addColumn('agent_id', 'uuid', (column) => column.notNull())
        .addColumn('id', 'uuid', (column) => column.notNull())
        .addColumn('kind', 'text', (column) => column.notNull())
        .addColumn('first_seq', 'integer', (column) => column.notNull())
        .addColumn('last_seq', 'integer', (column) => column.notNull())
        .addColumn('body', 'jsonb', (column) => column.notNull().defaultTo(sql`'{}'::jsonb`))
        .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
        .addPrimaryKeyConstraint('context_ranges_pkey', ['root_id', 'agent_id', 'id'])
        .execute();
    },
  },
  '2026-11-21-002-counts-and-range-ends': {
    async up(db: Kysely<unknown>) {
      // A stored count names the model it is for and how it was made: it is reused only for
      // that model, and reports stay honest about exactness.
      await db.schema
        .alterTable('messages')
        .addColumn('count_target', 'text')
        .addColumn('count_method', 'text')
        .addColumn('count_exact', 'boolean')
        .execute();
      // Marks and rewinds, found without reading the messages between them.
      await db.schema
        .createIndex('messages_marks_and_rewinds')
        .on('messages')
        .columns(['root_id', 'agent_id', 'seq'])
        .where(sql.ref('kind'), 'in', sql`('mark', 'rewind')`)
        .execute();
      // A range can start in an ancestor's messages and end in the agent's own.
      await db.schema
        .alterTable('context_ranges')
        .addColumn('first_agent_id', 'uuid')
        .addColumn('last_agent_id', 'uuid')
        .execute();
    },
  },
};

/** The newest migration: a store that has applied it is current. */
export const latestMigration = Object.keys(migrations).sort().at(-1) as string;

/** The migrations, in order, for Kysely's `Migrator`. */
export const migrationProvider: MigrationProvider = {
  getMigrations: () => Promise.resolve(migrations),
};
