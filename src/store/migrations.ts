import { type Kysely, type Migration, type MigrationProvider, sql } from 'kysely';
import type { DatabaseSchema } from './database-schema.js';
import { backfillPrefixDigests } from './prefix-digest-backfill.js';

/**
 * The statements that fill the columns and tables of `003` and `2026-11-27-001` from rows stored
 * before them. Each runs over every agent tree: on Citus, once, across all shards (see CITUS.md).
 */
export const MIGRATION_BACKFILLS = {
  exchangeTitles: sql`
    update messages set title = left(
      case jsonb_typeof(body->'content')
        when 'string' then body->>'content'
        else coalesce((
          select string_agg(case when part->>'type' = 'text' then part->>'text' else '[' || (part->>'type') || ']' end, ' ' order by position)
          from jsonb_array_elements(body->'content') with ordinality as parts(part, position)), '')
      end, 200)
    where starts_exchange`,
  toolParts: sql`
    insert into tool_parts (root_id, agent_id, seq, part_index, type, tool_call_id, tool_name)
    select m.root_id, m.agent_id, m.seq, (parts.position - 1)::integer, parts.part->>'type', parts.part->>'toolCallId', parts.part->>'toolName'
    from messages m,
      jsonb_array_elements(case when jsonb_typeof(m.body->'content') = 'array' then m.body->'content' else '[]'::jsonb end) with ordinality as parts(part, position)
    where parts.part->>'type' in ('tool-call', 'tool-result')`,
  // 2026-11-27-001: the search text, from the column it moves out of.
  messageSearch: sql`insert into message_search (root_id, agent_id, seq, search) select root_id, agent_id, seq, search from messages`,
};

/**
 * The text search configuration of the store: English stemming, so that "migrations" finds
 * "migration"; a query is parsed with the same one ({@link searchHistory}).
 */
export const SEARCH_CONFIGURATION = 'english';

/** A search query as the index reads text: dots, slashes and backslashes are spaces (see {@link MESSAGE_SEARCH_VECTOR}). */
export function searchableQuery(query: string): string {
  return query.replace(/[./\\]/g, ' ');
}

/** Characters of a message's searchable text that are indexed: the tsvector stays far below PostgreSQL's 1 MB limit. */
export const SEARCHED_CHARACTERS = 100_000;

/**
 * A message's searchable text as a `tsvector`, from its stored body: text content and text parts,
 * tool call names and arguments, tool results (text, JSON values, text items). The JSON array of
 * them is read as text, its escapes (`\n`, `\"`, `\u0001`) turned into spaces, and so are dots and
 * slashes: `src/app.ts` is indexed as `src`, `app` and `ts`, so that `app` finds it
 * ({@link searchableQuery} does the same to a query). Stored in `message_search` a little after
 * the message (see search-text-fill.ts), or by a search that finds it not written yet.
 */
export const MESSAGE_SEARCH_VECTOR = sql`to_tsvector(${sql.lit(SEARCH_CONFIGURATION)}, regexp_replace(left((
    jsonb_path_query_array(body, 'strict $.content ? (@.type() == "string")', '{}', true)
    || jsonb_path_query_array(body, 'lax $.content[*] ? (@.type == "text").text')
    || jsonb_path_query_array(body, 'lax $.content[*] ? (@.type == "tool-call").toolName')
    || jsonb_path_query_array(body, 'lax $.content[*] ? (@.type == "tool-call").input')
    || jsonb_path_query_array(body, 'lax $.content[*] ? (@.type == "tool-result").output ? (@.type != "content").value')
    || jsonb_path_query_array(body, 'lax $.content[*] ? (@.type == "tool-result").output ? (@.type == "content").value[*] ? (@.type == "text").text')
  )::text, ${sql.lit(SEARCHED_CHARACTERS)}), '\\\\(u[0-9a-fA-F]{4}|.)|[./]', ' ', 'g'))`;

/**
 * Versioned migrations, run on open. Portable SQL only: no SERIAL or identity columns, no
 * triggers, no advisory locks of our own (Kysely's migrator takes one while it migrates), UUIDs made
 * by the application.
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
  '2026-11-21-003-titles-and-tool-parts': {
    async up(db: Kysely<unknown>) {
      // What the history view shows of each exchange, kept beside the message so that the view
      // is drawn without reading bodies; the same clipping as `exchangeTitle` (200 code points).
      await db.schema.alterTable('messages').addColumn('title', 'text').execute();
      // Every tool call and result, found by id in O(log n): an append checks that no call id is
      // reused in what the agent sees, and the history view pairs calls without reading bodies.
      await db.schema
        .createTable('tool_parts')
        .addColumn('root_id', 'uuid', (column) => column.notNull())
        .addColumn('agent_id', 'uuid', (column) => column.notNull())
        .addColumn('seq', 'integer', (column) => column.notNull())
        .addColumn('part_index', 'integer', (column) => column.notNull())
        .addColumn('type', 'text', (column) => column.notNull())
        .addColumn('tool_call_id', 'text', (column) => column.notNull())
        .addColumn('tool_name', 'text', (column) => column.notNull())
        .addPrimaryKeyConstraint('tool_parts_pkey', ['root_id', 'agent_id', 'seq', 'part_index'])
        .execute();
      await db.schema.createIndex('tool_parts_by_call_id').on('tool_parts').columns(['root_id', 'tool_call_id']).execute();
      // Rows stored before this migration get the same from their bodies.
      await MIGRATION_BACKFILLS.exchangeTitles.execute(db);
      await MIGRATION_BACKFILLS.toolParts.execute(db);
    },
  },
  '2026-11-24-001-agent-names': {
    async up(db: Kysely<unknown>) {
      // A name the user gives an agent (`--name`), shown by `agents`; a fork does not inherit it.
      await db.schema.alterTable('agents').addColumn('name', 'text').execute();
    },
  },
  '2026-11-24-004-escaped-json': {
    async up(db: Kysely<unknown>) {
      // jsonb refuses NUL and lone surrogates, which JavaScript strings may hold: such a value is
      // stored with its strings escaped (see stored-json.ts) and its row says so.
      await db.schema.alterTable('messages').addColumn('body_escaped', 'boolean', (column) => column.notNull().defaultTo(false)).execute();
      await db.schema.alterTable('agents').addColumn('meta_escaped', 'boolean', (column) => column.notNull().defaultTo(false)).execute();
      await db.schema.alterTable('context_ranges').addColumn('body_escaped', 'boolean', (column) => column.notNull().defaultTo(false)).execute();
    },
  },
  '2026-11-26-001-message-search': {
    async up(db: Kysely<unknown>) {
      // Full-text search over each message (searchHistory): a generated column, so the rows
      // stored before it are filled as it is added, and a GIN index. It is not led by root_id (a
      // GIN index over a tsvector takes no uuid without btree_gin): every search filters root_id
      // and agent_id through the primary key as well.
      await db.schema.alterTable('messages').addColumn('search', sql`tsvector`, (column) => column.generatedAlwaysAs(MESSAGE_SEARCH_VECTOR).stored()).execute();
      await db.schema.createIndex('messages_search').on('messages').using('gin').column('search').execute();
    },
  },
  '2026-11-27-001-message-search-table': {
    async up(db: Kysely<unknown>) {
      // The search text, made in each message's write, cost more than the write itself for a long
      // tool result (a 50 KB one's append took 17.4 ms on PGlite, 4.2 without it). It moves to a
      // table of its own, written a little after the message (search-text-fill.ts); insert-only,
      // since PGlite has no autovacuum to clear the old rows an update of `messages` would leave.
      await db.schema
        .createTable('message_search')
        .addColumn('root_id', 'uuid', (column) => column.notNull())
        .addColumn('agent_id', 'uuid', (column) => column.notNull())
        .addColumn('seq', 'integer', (column) => column.notNull())
        .addColumn('search', sql`tsvector`, (column) => column.notNull())
        .addPrimaryKeyConstraint('message_search_pkey', ['root_id', 'agent_id', 'seq'])
        .execute();
      await MIGRATION_BACKFILLS.messageSearch.execute(db);
      await db.schema.alterTable('messages').dropColumn('search').execute();
      await db.schema.createIndex('message_search_search').on('message_search').using('gin').column('search').execute();
    },
  },
  '2026-11-26-003-pins': {
    async up(db: Kysely<unknown>) {
      // Pin and unpin events, found on an agent's path without reading the messages around them.
      await db.schema
        .createIndex('messages_pins')
        .on('messages')
        .columns(['root_id', 'agent_id', 'seq'])
        .where(sql.ref('kind'), 'in', sql`('pin', 'unpin')`)
        .execute();
    },
  },
  '2026-11-26-002-prefix-digests': {
    async up(db: Kysely<unknown>) {
      // The prefix index (prefix-digests.ts): a request finds the conversation it extends by its
      // digests, without reading every history. A row per user message, found by its digest
      // across every tree (on Citus, a fan-out: see CITUS.md), and each agent's tip on its row.
      await db.schema
        .createTable('prefix_digests')
        .addColumn('root_id', 'uuid', (column) => column.notNull())
        .addColumn('agent_id', 'uuid', (column) => column.notNull())
        .addColumn('seq', 'integer', (column) => column.notNull())
        .addColumn('prefix_length', 'integer', (column) => column.notNull())
        .addColumn('digest', 'text', (column) => column.notNull())
        .addPrimaryKeyConstraint('prefix_digests_pkey', ['root_id', 'agent_id', 'seq'])
        .execute();
      await db.schema.createIndex('prefix_digests_by_digest').on('prefix_digests').column('digest').execute();
      await db.schema
        .alterTable('agents')
        .addColumn('prefix_digest', 'text', (column) => column.notNull().defaultTo(''))
        .addColumn('prefix_length', 'integer', (column) => column.notNull().defaultTo(0))
        .execute();
      // Histories stored before this migration get theirs from their messages.
      await backfillPrefixDigests(db as Kysely<DatabaseSchema>);
    },
  },
};

/** The newest migration: a store that has applied it is current. */
export const latestMigration = Object.keys(migrations).sort().at(-1) as string;

/** The migrations, in order, for Kysely's `Migrator`. */
export const migrationProvider: MigrationProvider = {
  getMigrations: () => Promise.resolve(migrations),
};
