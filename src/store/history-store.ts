import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Message, ModelMessage } from '../message/message.js';
import { agentRow, KeptAgentListing, nameAgent, updateAgentMeta } from './agents.js';
import { formatAgentId, parseAgentId } from './agent-id.js';
import { appendInTransaction, throwIfAborted, validateAppend, withPinEvents } from './append.js';
import { appendKeepingTip, type AppendWrites, keepTip } from './append-from-tip.js';
import type { GuardedWrite } from './direct-transaction.js';
import { AppendTips } from './append-tips.js';
import { insertRanges, readRanges } from './context-ranges.js';
import type {
  AgentSummary,
  AppendOptions,
  AppendResult,
  ContextRange,
  ContextRangeInput,
  HistoryMessageRead,
  HistorySearch,
  HistorySearchOptions,
  MessageOutline,
  MessagePosition,
  ReadHistoryMessageOptions,
  PrefixMatch,
  OwnRowsRead,
  StoredMessage,
  TimelineEntry,
  TimelineFork,
  WindowTail,
} from './history-store-types.js';
import { readHistoryMessage, searchHistory } from './search-history.js';
import { SearchTextFill } from './search-text-fill.js';
import { findStoredPrefix } from './find-stored-prefix.js';
import { analyzePrefixIndexOnce } from './prefix-statistics.js';
import type { DatabaseSchema } from './database-schema.js';
import { insertFork, readHistory } from './lineage.js';
import { type OpenDatabase, openDatabase, requireStoreLocation, type StoreLocation } from './open-database.js';
import type { OpenStoreOptions, ViewSaver } from './open-store-options.js';
import { parseDatabaseUrl } from './database-url.js';
import { SavedViewUpkeep } from './saved-view-upkeep.js';
import { describeStoreFailure } from './store-open-error.js';
import { messageRows, requireAgent, toStoredMessage } from './stored-rows.js';
import { serveStore, type StoreService } from './serve-store.js';
import { outline, timeline, visible, visibleLength, windowTail } from './window-reads.js';
import { type WriteListener, WriteNotifications } from './write-notifications.js';

export type * from './history-store-types.js';
export type { OpenStoreOptions, ViewSaver } from './open-store-options.js';

/**
 * The full history of every agent, in PostgreSQL: appends in one transaction with a gapless
 * per-agent `seq`, forks that copy no rows, and replay that walks the lineage back to the last
 * `clear` and plays forward. Nothing is ever deleted; windows are views of this history.
 */
export class HistoryStore {
  readonly #database: OpenDatabase;
  #prefixIndexAnalyzed = false;
  readonly #views: SavedViewUpkeep;
  readonly #saveViews: ViewSaver | undefined;
  readonly #notifications: WriteNotifications;
  #agentListing: KeptAgentListing | undefined;
  #closing: Promise<void> | undefined;
  /** Serving a PGlite directory to other processes, while this one holds it. */
  #service: StoreService | undefined;
  /** Where the agents appended to here stand: their next append starts from there. */
  readonly #tips = new AppendTips();
  /** The search text of the messages written here, filled after their writes. */
  readonly #searchText: SearchTextFill;

  /** A store on an open database; a remote store passes one that runs nothing. */
  protected constructor(database: OpenDatabase, options: OpenStoreOptions = {}) {
    this.#database = database;
    this.#views = new SavedViewUpkeep(database.dataDir);
    this.#saveViews = options.saveViews;
    this.#notifications = new WriteNotifications(database);
    this.#searchText = new SearchTextFill(database);
  }

  /**
   * Runs a write to `agentId` in one transaction (see {@link SavedViewUpkeep.write}), announced
   * to the write listeners as part of it: on a server the NOTIFY is sent inside the transaction,
   * so that PostgreSQL delivers it when, and only if, the write commits.
   */
  async #write<Result>(agentId: string, work: (transaction: Transaction<DatabaseSchema>) => Promise<Result>): Promise<Result> {
    const result = await this.#views.write(agentId, () =>
      this.#database.db.transaction().execute(async (transaction) => {
        const done = await work(transaction);
        await this.#notifications.announce(transaction, agentId);
        return done;
      }));
    this.#notifications.committed(agentId);
    return result;
  }

  /** {@link #write}, as a direct transaction (see direct-transaction.ts): an append from the agent's tip. False when its guard stopped it. */
  async #writeDirect(agentId: string, write: GuardedWrite): Promise<boolean> {
    const written = await this.#views.write(agentId, () => this.#database.directTransaction(write, this.#notifications.announcement(agentId)));
    if (written) this.#notifications.committed(agentId);
    return written;
  }

  /**
   * Waits until the messages written here so far have their search text, which is filled a
   * little after each write (see search-text-fill.ts); a search finds them before that all the same.
   */
  searchTextFilled(): Promise<void> {
    return this.#searchText.settled();
  }

  /**
   * Calls `listener` with the agent id after each committed write (append, fork, ranges,
   * rename, a new agent): on PGlite those of this process and of those served through it, on a
   * server those of every process (through LISTEN/NOTIFY). Resolves once listening, to a
   * function that stops it.
   */
  onWrite(listener: WriteListener): Promise<() => Promise<void>> {
    return this.#notifications.add(listener);
  }

  /**
   * Opens (and migrates) the store at a PGlite directory, in memory, or on a server.
   * @throws SlidingContextError `INVALID_DATABASE_URL` before connecting; `STORE_UNAVAILABLE` when
   * the server or directory cannot be used, saying why; `INVALID_OPTION` for no location, or an empty `dataDir`
   */
  static async open(location: StoreLocation, options: OpenStoreOptions = {}): Promise<HistoryStore> {
    requireStoreLocation(location);
    if ('databaseUrl' in location) parseDatabaseUrl(location.databaseUrl);
    let store: HistoryStore;
    try {
      store = new HistoryStore(await openDatabase(location), options);
    } catch (error) {
      throw describeStoreFailure(error, location);
    }
    // Other processes reach a directory through its holder, for as long as it is open here.
    if ('dataDir' in location) store.#service = await serveStore(store, location.dataDir);
    return store;
  }

  get engine(): 'pglite' | 'postgres' {
    return this.#database.engine;
  }

  /** True for a PGlite directory: the only store that keeps views beside it ({@link deriveSavedView}). */
  get savesViews(): boolean {
    return this.#views.savesViews;
  }

  /** Creates a root agent and returns its id; `name` is what `agents` shows it as. */
  async createAgent(meta: Record<string, unknown> = {}, options: { readonly name?: string | undefined } = {}): Promise<string> {
    const id = randomUUID();
    await this.#write(id, (transaction) => transaction.insertInto('agents').values(agentRow(id, meta, options.name)).execute());
    return id;
  }

  /** Merges `changes` into an agent's meta: a key changed to null is removed. */
  async updateAgentMeta(agentId: string, changes: Readonly<Record<string, unknown>>): Promise<void> {
    const key = parseAgentId(agentId);
    await this.#write(agentId, (transaction) => updateAgentMeta(transaction, key, changes));
  }

  /** Names (or, with null, unnames) an agent. */
  async renameAgent(agentId: string, name: string | null): Promise<void> {
    const key = parseAgentId(agentId);
    await this.#write(agentId, (transaction) => nameAgent(transaction, key, name));
  }

  /**
   * Creates a root agent holding `messages`, in one transaction: a failure or an interrupt (a
   * killed process, an aborted `signal`) leaves no agent, never one with part of its messages.
   */
  async createAgentWithMessages(
    meta: Record<string, unknown>,
    messages: readonly Message[],
    options: Omit<AppendOptions, 'expectedLastSeq' | 'idempotencyKey'> & { readonly name?: string | undefined } = {},
  ): Promise<AppendResult & { readonly agentId: string }> {
    const [validated, withPins] = withPinEvents(validateAppend(messages, options), options);
    const id = randomUUID();
    const key = { rootId: id, id };
    throwIfAborted(options.signal, id);
    const done = await this.#write(id, async (transaction) => {
      await transaction.insertInto('agents').values(agentRow(id, meta, options.name)).execute();
      return appendInTransaction(transaction, key, validated, withPins, this.#database.engine === 'pglite');
    });
    const result = keepTip(this.#tips, id, done);
    this.#searchText.written(key, result.firstSeq, result.lastSeq);
    return { agentId: id, ...result };
  }

  /**
   * Appends messages in one transaction. With `expectedLastSeq`, the append is optimistic and a
   * concurrent writer makes it fail with `STALE_WINDOW`; with `idempotencyKey`, a retry of the
   * same append writes nothing and returns the seqs first written. A tool result whose call is
   * not in the exchange it joins is refused (`ORPHANED_TOOL_RESULT`), so that no writer can
   * leave a history that fails to open. With `pinned`, a `pin` event for each model message is
   * stored after them, in the same transaction.
   */
  async append(agentId: string, messages: readonly Message[], options: AppendOptions = {}): Promise<AppendResult> {
    const key = parseAgentId(agentId);
    const [validated, withPins] = withPinEvents(validateAppend(messages, options), options);
    throwIfAborted(options.signal, agentId);
    const writes: AppendWrites = {
      db: this.#database.db,
      inTransaction: (work) => this.#write(agentId, work),
      direct: (write) => this.#writeDirect(agentId, write),
      oneStatement: this.#database.engine === 'pglite',
    };
    const result = await appendKeepingTip(this.#tips, writes, agentId, key, validated, withPins);
    if (!result.duplicate) this.#searchText.written(key, result.firstSeq, result.lastSeq);
    return result;
  }

  /** Forks an agent at its current last seq: the child sees the parent's history up to there. */
  async fork(agentId: string, meta: Record<string, unknown> = {}, options: { readonly name?: string | undefined } = {}): Promise<string> {
    const key = parseAgentId(agentId);
    const id = randomUUID();
    const child = formatAgentId({ rootId: key.rootId, id });
    await this.#write(child, (transaction) => insertFork(transaction, key, id, meta, options.name));
    return child;
  }

  /**
   * The history an agent plays: its ancestors' messages up to each fork point, then its own,
   * starting at the most recent `clear` on that path. Events are included, in order, so that
   * `applyEvents` gives what the model sees. With `acrossClears`, the whole path back to the
   * root's first message (for an export).
   */
  async history(agentId: string, options: { readonly acrossClears?: boolean | undefined } = {}): Promise<StoredMessage[]> {
    const key = parseAgentId(agentId);
    return readHistory(this.#database.db, key, options.acrossClears === true);
  }

  /**
   * The messages `agentId` stored itself with seqs from `fromSeq` to `toSeq`, whole, oldest
   * first (none of its ancestors'; events included): what a viewer opens one exchange with.
   */
  async messages(agentId: string, fromSeq: number, toSeq: number): Promise<StoredMessage[]> {
    const key = parseAgentId(agentId);
    const rows = await messageRows(this.#database.db, key.rootId, key.id).where('seq', '>=', fromSeq).where('seq', '<=', toSeq).orderBy('seq').execute();
    return rows.map((row) => toStoredMessage(key.rootId, key.id, row));
  }

  /**
   * Reads what a window can hold, in time that grows with the window, not the history: the
   * messages before the first exchange (and the first exchange, for a pinned one), then whole
   * exchanges from the newest back until their stored counts reach `minTokens`. Marks and
   * rewinds are resolved from the event rows alone; the messages a rewind hid are never read.
   * With `after` (the last message a summary covers), the tail stops there, if the model sees it.
   */
  windowTail(
    agentId: string,
    options: { readonly minTokens: number; readonly withFirstExchange: boolean; readonly after?: MessagePosition | undefined },
  ): Promise<WindowTail> {
    return windowTail(this.#database.db, agentId, options);
  }

  /**
   * How many stored messages (events included) lie in what the agent's model sees now: counted
   * from the seq runs after clears, marks and rewinds, without reading them.
   */
  visibleLength(agentId: string): Promise<number> {
    return visibleLength(this.#database.db, agentId);
  }

  /** Which of `positions` lie in what the agent's model sees now (not hidden by a clear or rewind). */
  visible(agentId: string, positions: readonly MessagePosition[]): Promise<boolean[]> {
    return visible(this.#database.db, agentId, positions);
  }

  /**
   * The messages the model sees, outlined from their metadata without reading their bodies:
   * role, stored count, time, the title of an exchange start, and the tool calls and results.
   * Enough to plan a window and draw the history view of a long history quickly. With
   * `afterSeq` only the agent's own messages after it, to extend an outline read before.
   */
  outline(agentId: string, options: OwnRowsRead = {}): Promise<MessageOutline[]> {
    return outline(this.#database.db, agentId, options);
  }

  /**
   * Every stored row of the path an agent plays, events included, without bodies: since its
   * latest clear, or with `acrossClears` back to its root's first message. With the forks along
   * the path and those made from the agent itself, for the history view.
   */
  timeline(
    agentId: string,
    options: OwnRowsRead & { readonly acrossClears?: boolean | undefined } = {},
  ): Promise<{ entries: TimelineEntry[]; forks: TimelineFork[] }> {
    return timeline(this.#database.db, agentId, options);
  }

  /**
   * Searches what the agent sees of its history, evicted exchanges included (its ancestors' up
   * to each fork, from its latest clear, rewinds applied), for `query` in PostgreSQL's web search
   * syntax: the best matches first, each citing its exchange and message with an excerpt, within
   * `maxTokens` (default 4,000, estimated as bytes / 4).
   */
  searchHistory(agentId: string, query: string, options: HistorySearchOptions = {}): Promise<HistorySearch> {
    return searchHistory(this.#database.db, agentId, query, options);
  }

  /**
   * One message the agent sees, by its seq (an ancestor's with `storedBy`), as text, whole up to
   * `maxTokens` (default 4,000, estimated as bytes / 4) and cut there with a marker.
   */
  readHistoryMessage(agentId: string, seq: number, options: ReadHistoryMessageOptions = {}): Promise<HistoryMessageRead> {
    return readHistoryMessage(this.#database.db, agentId, seq, options);
  }

  /**
   * Records ranges of an agent's history that its window evicted, readmitted or summarized. They
   * are a record only: the messages stay, and the window is recomputed from them.
   */
  async recordRanges(agentId: string, ranges: readonly ContextRangeInput[]): Promise<void> {
    const key = parseAgentId(agentId);
    if (ranges.length === 0) return;
    await this.#write(agentId, (transaction) => insertRanges(transaction, key, ranges));
  }

  /**
   * The ranges recorded for an agent, oldest first; `kind` keeps one kind only (or those listed);
   * `inherited` adds each ancestor's up to the fork that leads here.
   */
  ranges(
    agentId: string,
    filter: { readonly kind?: string | readonly string[] | undefined; readonly inherited?: boolean | undefined } = {},
  ): Promise<ContextRange[]> {
    return readRanges(this.#database.db, agentId, filter);
  }

  /** The agent's last seq: how many rows it stored itself. */
  async lastSeq(agentId: string): Promise<number> {
    return (await requireAgent(this.#database.db, parseAgentId(agentId))).last_seq;
  }

  /** The settings stored with an agent (inherited by its forks). */
  async agentMeta(agentId: string): Promise<Record<string, unknown>> {
    return (await requireAgent(this.#database.db, parseAgentId(agentId))).meta;
  }

  /**
   * Every agent, with its message count, stored tokens and last activity, its name, what it
   * inherits from its ancestors and the title of its first exchange.
   */
  listAgents(): Promise<AgentSummary[]> {
    // Kept from one listing to the next: after the first, only the rows stored since are read.
    this.#agentListing ??= new KeptAgentListing(this.#database.db);
    return this.#agentListing.list();
  }

  /**
   * The prefix rule (see `findConversationByPrefix`) answered from the prefix index: the agent
   * whose visible history shares the longest prefix with `messages`, holding a user message, and
   * how long that prefix is. One lookup of the request's digests over every agent tree, then reads
   * of the trees it names; no history is read whole.
   */
  async findStoredPrefix(messages: readonly ModelMessage[]): Promise<PrefixMatch | undefined> {
    // A server's autovacuum analyzes the index; PGlite's tables are analyzed here, once.
    if (this.#database.engine === 'pglite' && !this.#prefixIndexAnalyzed) this.#prefixIndexAnalyzed = await analyzePrefixIndexOnce(this.#database.db);
    return findStoredPrefix(this.#database.db, messages);
  }

  /**
   * Derives a value from the store and, on a PGlite directory, saves `toJson(value)` as the
   * agent's view `name`, which `readSavedView` gives back without starting PGlite until the next
   * write. Nothing is saved when a write ran while the value was derived.
   */
  deriveSavedView<Value>(agentId: string, name: string, derive: () => Promise<Value>, toJson: (value: Value) => unknown): Promise<Value> {
    return this.#views.derive(agentId, name, derive, toJson);
  }

  /**
   * Closes the database (and, for PGlite, writes it out and releases the directory lock), after
   * any transaction still running and any operation served to another process, saving the
   * views of what was written first (see {@link OpenStoreOptions.saveViews}). Closing again
   * returns the same promise.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      try {
        await this.#service?.stop();
        await this.#notifications.stop();
        // The views of what was written here, through the `saveViews` given at open.
        const save = this.#saveViews;
        if (save) await this.#views.saveWritten((agentId) => save(this, agentId), (agentId) => this.visibleLength(agentId));
        await this.#searchText.settled();
      } finally {
        await this.#database.close();
      }
    })();
    return this.#closing;
  }
}
