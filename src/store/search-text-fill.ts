/**
 * The search text of stored messages (their `tsvector`, see `MESSAGE_SEARCH_VECTOR`, in
 * `message_search`), written shortly after the messages, not with them: for a long tool result it
 * costs more than the write itself, and an append is on the path of every model call. A search
 * that finds a message's row not written yet writes it first (see search-history.ts), so a
 * message is found as soon as it is stored.
 */
import { sql } from 'kysely';
import type { AgentKey } from './agent-id.js';
import { MESSAGE_SEARCH_VECTOR } from './migrations.js';
import type { StoreDatabase } from './stored-rows.js';

/**
 * How long after a write its search text is filled, ms: long enough that the model call the write
 * came before is on its way (the proxy sends it a millisecond or two after the write), not held
 * behind the fill on PGlite's one thread.
 */
const FILL_AFTER_MS = 20;

/** Writes the search text of `key`'s messages `fromSeq`..`toSeq` that have none. */
export async function fillSearchText(db: StoreDatabase, key: AgentKey, fromSeq: number, toSeq: number): Promise<void> {
  await sql`insert into message_search (root_id, agent_id, seq, search)
    select root_id, agent_id, seq, ${MESSAGE_SEARCH_VECTOR} from messages
    where root_id = ${key.rootId} and agent_id = ${key.id} and seq >= ${fromSeq} and seq <= ${toSeq}
    on conflict do nothing`.execute(db);
}

/** An agent's messages `fromSeq`..`toSeq`. */
type SeqRange = { readonly key: AgentKey; readonly fromSeq: number; readonly toSeq: number };

/**
 * The messages written here whose search text is still to write, written {@link FILL_AFTER_MS}
 * after their write, one statement per agent's run of seqs. A fill that fails (the server went
 * away) is left: a search writes those messages' text when it reads them.
 */
export class SearchTextFill {
  /** The database, read when a fill runs (a remote store's throws: it writes nothing here). */
  readonly #database: { readonly db: StoreDatabase };
  readonly #pending: SeqRange[] = [];
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> = Promise.resolve();

  constructor(database: { readonly db: StoreDatabase }) {
    this.#database = database;
  }

  /** Queues the fill of messages just written; returns at once. */
  written(key: AgentKey, fromSeq: number, toSeq: number): void {
    if (toSeq < fromSeq) return;
    this.#pending.push({ key, fromSeq, toSeq });
    this.#timer ??= setTimeout(() => {
      this.#drain();
    }, FILL_AFTER_MS);
  }

  /** Fills what is queued now, and waits for every fill started. */
  async settled(): Promise<void> {
    this.#drain();
    await this.#running;
  }

  #drain(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const ranges = mergedRanges(this.#pending.splice(0));
    if (ranges.length === 0) return;
    this.#running = this.#running.then(async () => {
      for (const { key, fromSeq, toSeq } of ranges) await fillSearchText(this.#database.db, key, fromSeq, toSeq).catch(() => undefined);
    });
  }
}

/** The ranges with those of one agent that touch or overlap made one: one statement each, not one per write. */
export function mergedRanges(ranges: readonly SeqRange[]): SeqRange[] {
  const sorted = [...ranges].sort((a, b) => a.key.rootId.localeCompare(b.key.rootId) || a.key.id.localeCompare(b.key.id) || a.fromSeq - b.fromSeq);
  const merged: SeqRange[] = [];
  for (const range of sorted) {
    const last = merged.at(-1);
    if (last && last.key.rootId === range.key.rootId && last.key.id === range.key.id && range.fromSeq <= last.toSeq + 1) {
      merged[merged.length - 1] = { key: last.key, fromSeq: last.fromSeq, toSeq: Math.max(last.toSeq, range.toSeq) };
    } else merged.push(range);
  }
  return merged;
}
