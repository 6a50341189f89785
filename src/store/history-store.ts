import { randomUUID } from 'node:crypto';
import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import { exchangeTitle } from '../exchange/describe-exchange.js';
import { startsExchange } from '../exchange/detect-exchanges.js';
import { pairingError } from '../exchange/require-valid-conversation.js';
import { toolCallsOf, toolResultsOf } from '../exchange/tool-parts.js';
import { isRecord } from '../message/is-record.js';
import { type Message, messageSchema } from '../message/message.js';
import { type AgentKey, formatAgentId, parseAgentId } from './agent-id.js';
import { type CountTarget, countTargetKey, type TokenCount } from '../tokens/token-counter.js';
import type { DatabaseSchema, MessagesTable } from './database-schema.js';
import { type SeqSegment, visibleSegments } from './visible-segments.js';
import { type OpenDatabase, openDatabase, type StoreLocation } from './open-database.js';
import { dropSavedViews, saveView } from './saved-views.js';
import { parseDatabaseUrl } from './database-url.js';
import { describeStoreFailure } from './store-open-error.js';
import { decodeStoredJson, encodeStoredJson, storableDisplayText } from './stored-json.js';
import { requireStorableIdentifiers } from './require-storable-identifiers.js';
import { serveStore, type StoreService } from './serve-store.js';
import { findAppendPairingProblem, needsOpenExchange } from './find-append-pairing-problem.js';

/** Rows per INSERT statement: large appends go in several statements of one transaction. */
const INSERT_CHUNK = 1000;

/** A stored row as the store gives it out. */
function toStoredMessage(
  rootId: string,
  agentId: string,
  row: Pick<Selectable<MessagesTable>, 'seq' | 'tokens' | 'count_target' | 'count_method' | 'count_exact' | 'created_at' | 'body_escaped'> & { readonly body: string },
): StoredMessage {
  return {
    agentId: formatAgentId({ rootId, id: agentId }),
    seq: row.seq,
    message: messageSchema.parse(decodeStoredJson(JSON.parse(row.body), row.body_escaped)),
    count:
      row.tokens === null || row.count_target === null
        ? null
        : { tokens: row.tokens, exact: row.count_exact === true, method: row.count_method ?? 'unknown', target: row.count_target },
    createdAt: new Date(row.created_at),
  };
}

/** Where a stored message lies among visible segments: the segment's index and the seq. */
function segmentPosition(segments: readonly SeqSegment[], position: MessagePosition): { segment: number; seq: number } | undefined {
  const segment = segmentIndex(segments, parseAgentId(position.agentId).id, position.seq);
  return segment === -1 ? undefined : { segment, seq: position.seq };
}

/** The index of the segment holding seq `seq` of agent `id` (the agent's own id, not the public one), or −1. */
function segmentIndex(segments: readonly SeqSegment[], id: string, seq: number): number {
  return segments.findIndex((segment) => segment.agentId === id && seq >= segment.fromSeq && seq <= segment.toSeq);
}

/** The agent's row (its meta decoded), or `UNKNOWN_AGENT`. */
async function requireAgent(db: Kysely<DatabaseSchema> | Transaction<DatabaseSchema>, key: AgentKey) {
  const agent = await db
    .selectFrom('agents')
    .select(['last_seq', 'lineage', 'meta', 'meta_escaped', 'fork_seq', 'parent_id'])
    .where('root_id', '=', key.rootId)
    .where('id', '=', key.id)
    .executeTakeFirst();
  if (!agent) throw unknownAgent(key);
  const meta = decodeStoredJson(agent.meta, agent.meta_escaped);
  return { ...agent, meta: isRecord(meta) ? meta : {} };
}

function unknownAgent(key: AgentKey): SlidingContextError {
  return new SlidingContextError('UNKNOWN_AGENT', `No agent ${formatAgentId(key)} in this store.`);
}

/** A mark's or rewind's label as read by `body->>'label'`, unescaped when its row is escaped. */
function labelOf(row: { readonly label: string | null; readonly body_escaped: boolean }): string | undefined {
  if (row.label === null) return undefined;
  const label = decodeStoredJson(row.label, row.body_escaped);
  return typeof label === 'string' ? label : undefined;
}

/** A range's data as its row stores it. */
function storedRangeBody(data: Record<string, unknown>): { body: string; body_escaped: boolean } {
  const stored = encodeStoredJson(data);
  return { body: stored.text, body_escaped: stored.escaped };
}

/** A range's data as read back. */
function rangeData(body: unknown, escaped: boolean): Record<string, unknown> {
  const data = decodeStoredJson(body, escaped);
  return isRecord(data) ? data : {};
}

/** The row of a new root agent. */
function agentRow(id: string, meta: Record<string, unknown>, name: string | undefined) {
  const stored = encodeStoredJson(meta);
  return { root_id: id, id, parent_id: null, fork_seq: null, lineage: '[]', last_seq: 0, meta: stored.text, meta_escaped: stored.escaped, name: name ?? null };
}

/** Throws `ABORTED` once `signal` is aborted: the transaction it is thrown in rolls back. */
function throwIfAborted(signal: AbortSignal | undefined, agentId: string): void {
  if (signal?.aborted === true) {
    throw new SlidingContextError('ABORTED', `The append to agent ${agentId} was interrupted before it committed; nothing of it was stored.`, { cause: signal.reason });
  }
}

/** The messages of an append, checked before anything is written. */
function validateAppend(messages: readonly Message[], options: AppendOptions): Message[] {
  const validated = messages.map((message, index) => {
    const result = messageSchema.safeParse(message);
    if (!result.success) throw new SlidingContextError('INVALID_MESSAGE', `messages[${index}] is not a valid message: ${result.error.issues[0]?.message ?? 'invalid'}.`);
    return result.data;
  });
  if (options.counts !== undefined && (options.countTarget === undefined || options.counts.length !== validated.length)) {
    // Counts without the model they are for, or not one per message, would be stored wrong.
    throw new SlidingContextError('INVALID_OPTION', `append: counts need a countTarget and one entry per message (${validated.length}); got ${options.counts.length}${options.countTarget === undefined ? ' and no countTarget' : ''}.`);
  }
  const badDate = options.createdAt?.some((date) => date !== undefined && Number.isNaN(date.getTime())) === true;
  if (options.createdAt !== undefined && (options.createdAt.length !== validated.length || badDate)) {
    throw new SlidingContextError('INVALID_OPTION', `append: createdAt needs one entry per message (${validated.length}), each a valid date or undefined; got ${options.createdAt.length}.`);
  }
  requireStorableIdentifiers(validated, options.idempotencyKey);
  return validated;
}

/**
 * The row a message is stored as, at `seq`; `idempotencyKey` goes on the first row of a batch
 * only; `createdAt` is when it was first written, for a history brought back (else now).
 */
function messageRow(key: AgentKey, seq: number, message: Message, count: StoredCount | null, idempotencyKey: string | null, createdAt?: Date) {
  const body = encodeStoredJson(message);
  const starts = startsExchange(message);
  return {
    root_id: key.rootId,
    agent_id: key.id,
    seq,
    kind: message.role === 'event' ? message.kind : message.role,
    body: body.text,
    body_escaped: body.escaped,
    tokens: count?.tokens ?? null,
    count_target: count ? count.target : null,
    count_method: count?.method ?? null,
    count_exact: count?.exact ?? null,
    starts_exchange: starts,
    // A display string: NUL or a lone surrogate in it is replaced; the body keeps them.
    title: starts ? storableDisplayText(exchangeTitle(message)) : null,
    idempotency_key: idempotencyKey,
    ...(createdAt === undefined ? {} : { created_at: createdAt }),
  };
}

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
  /** `evicted`, `readmitted`, or `summary`. */
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

/** A stored message the model sees, without its body: what {@link HistoryStore.outline} reads. */
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

/** What {@link HistoryStore.windowTail} read. */
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
}

/** Options of {@link HistoryStore.append}. */
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
  readonly tokens: number;
  readonly lastActivity: Date;
  /** The name the user gave it, or null. */
  readonly name: string | null;
  /** The parent's seq it forked at (null for a root). */
  readonly forkSeq: number | null;
  /** Messages it sees from its ancestors, up to the forks that lead to it. */
  readonly inheritedMessages: number;
  /** The title of the first exchange it plays (its ancestors' first, for a fork), or null. */
  readonly title: string | null;
  readonly provider: string | null;
  readonly model: string | null;
}

/** A stored row of an agent's path, without its body: what {@link HistoryStore.timeline} reads. */
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

/** A fork along or from an agent's path, as {@link HistoryStore.timeline} gives it. */
export interface TimelineFork {
  /** The agent forked from, and its seq the child forked at. */
  readonly parentId: string;
  readonly seq: number;
  readonly childId: string;
  readonly childName: string | null;
  readonly createdAt: Date;
}

/**
 * The full history of every agent, in PostgreSQL: appends in one transaction with a gapless
 * per-agent `seq`, forks that copy no rows, and replay that walks the lineage back to the last
 * `clear` and plays forward. Nothing is ever deleted; windows are views of this history.
 */
export class HistoryStore {
  readonly #database: OpenDatabase;
  /** Writes started, and writes not yet finished: a view derived meanwhile is not saved. */
  #writesStarted = 0;
  #writesRunning = 0;
  #closing: Promise<void> | undefined;
  /** Serving a PGlite directory to other processes, while this one holds it. */
  #service: StoreService | undefined;

  /** A store on an open database; a remote store passes one that runs nothing. */
  protected constructor(database: OpenDatabase) {
    this.#database = database;
  }

  /**
   * Opens (and migrates) the store at a PGlite directory, in memory, or on a server.
   * @throws SlidingContextError `INVALID_DATABASE_URL` before connecting; `STORE_UNAVAILABLE` when
   * the server or directory cannot be used, saying why
   */
  static async open(location: StoreLocation): Promise<HistoryStore> {
    if ('databaseUrl' in location) parseDatabaseUrl(location.databaseUrl);
    let store: HistoryStore;
    try {
      store = new HistoryStore(await openDatabase(location));
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
    return this.#database.dataDir !== undefined;
  }

  /** Creates a root agent and returns its id; `name` is what `agents` shows it as. */
  async createAgent(meta: Record<string, unknown> = {}, options: { readonly name?: string | undefined } = {}): Promise<string> {
    const id = randomUUID();
    await this.#write(() => this.#database.db.insertInto('agents').values(agentRow(id, meta, options.name)).execute());
    return id;
  }

  /** Names (or, with null, unnames) an agent. */
  async renameAgent(agentId: string, name: string | null): Promise<void> {
    const key = parseAgentId(agentId);
    await this.#write(async () => {
      await requireAgent(this.#database.db, key);
      await this.#database.db.updateTable('agents').set({ name }).where('root_id', '=', key.rootId).where('id', '=', key.id).execute();
    });
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
    const validated = validateAppend(messages, options);
    const id = randomUUID();
    const key = { rootId: id, id };
    throwIfAborted(options.signal, id);
    const result = await this.#write(() => this.#database.db.transaction().execute(async (transaction) => {
      await transaction.insertInto('agents').values(agentRow(id, meta, options.name)).execute();
      return this.#appendInTransaction(transaction, key, validated, options);
    }));
    return { agentId: id, ...result };
  }

  /**
   * Appends messages in one transaction. With `expectedLastSeq`, the append is optimistic and a
   * concurrent writer makes it fail with `STALE_WINDOW`; with `idempotencyKey`, a retry of the
   * same append writes nothing and returns the seqs first written. A tool result whose call is
   * not in the exchange it joins is refused (`ORPHANED_TOOL_RESULT`), so that no writer can
   * leave a history that fails to open.
   */
  async append(agentId: string, messages: readonly Message[], options: AppendOptions = {}): Promise<AppendResult> {
    const key = parseAgentId(agentId);
    const validated = validateAppend(messages, options);
    throwIfAborted(options.signal, agentId);
    return this.#write(() => this.#database.db.transaction().execute((transaction) => this.#appendInTransaction(transaction, key, validated, options)));
  }

  /** The body of an append, inside its transaction; see {@link append}. */
  async #appendInTransaction(
    transaction: Transaction<DatabaseSchema>,
    key: AgentKey,
    validated: readonly Message[],
    options: AppendOptions,
  ): Promise<AppendResult> {
    const agentId = formatAgentId(key);
    // The agent's row is locked first: writers of one agent queue here, so that what they check
    // next (a retried key, the last seq, the exchange appended to) cannot change under them.
    const agent = await transaction
      .selectFrom('agents')
      .select('last_seq')
      .where('root_id', '=', key.rootId)
      .where('id', '=', key.id)
      .forUpdate()
      .executeTakeFirst();
    if (!agent) throw unknownAgent(key);
    if (options.idempotencyKey !== undefined) {
      // The key sits on the first row of its batch; a retry is the same batch.
      const seen = await transaction
        .selectFrom('messages')
        .select('seq')
        .where('root_id', '=', key.rootId)
        .where('agent_id', '=', key.id)
        .where('idempotency_key', '=', options.idempotencyKey)
        .executeTakeFirst();
      if (seen) return { firstSeq: seen.seq, lastSeq: seen.seq + validated.length - 1, duplicate: true };
    }
    if (options.expectedLastSeq !== undefined && agent.last_seq !== options.expectedLastSeq) {
      throw new SlidingContextError(
        'STALE_WINDOW',
        `Agent ${agentId} moved on past seq ${String(options.expectedLastSeq)}: another writer appended first; reload the window and try again.`,
      );
    }
    const openExchange = needsOpenExchange(validated) ? await this.#openExchange(transaction, key, agent.last_seq) : [];
    const problem = findAppendPairingProblem(openExchange, validated);
    if (problem && problem.code !== 'MISSING_TOOL_RESULT' && problem.code !== 'DUPLICATE_TOOL_CALL_ID') throw pairingError({ ...problem, code: problem.code });
    const firstSeq = agent.last_seq + 1;
    const lastSeq = agent.last_seq + validated.length;
    await transaction.updateTable('agents').set({ last_seq: lastSeq }).where('root_id', '=', key.rootId).where('id', '=', key.id).execute();
    const target = options.countTarget === undefined ? null : countTargetKey(options.countTarget);
    for (let start = 0; start < validated.length; start += INSERT_CHUNK) {
      throwIfAborted(options.signal, agentId);
      const chunk = validated.slice(start, start + INSERT_CHUNK);
      await transaction
        .insertInto('messages')
        .values(
          chunk.map((message, offset) => {
            const index = start + offset;
            const count = target === null ? null : (options.counts?.[index] ?? null);
            const stored = count && target !== null ? { ...count, target } : null;
            // Only the first row carries the key: the unique index allows one per agent.
            return messageRow(key, firstSeq + index, message, stored, index === 0 ? (options.idempotencyKey ?? null) : null, options.createdAt?.[index]);
          }),
        )
        .execute();
      const toolParts = chunk.flatMap((message, offset) =>
        [...toolCallsOf(message), ...toolResultsOf(message)].map(({ part, partIndex }) => ({
          root_id: key.rootId,
          agent_id: key.id,
          seq: firstSeq + start + offset,
          part_index: partIndex,
          type: part.type,
          tool_call_id: part.toolCallId,
          tool_name: part.toolName,
        })),
      );
      // 7 parameters a row: 5,000 rows stay under PostgreSQL's 65,535 per statement.
      for (let from = 0; from < toolParts.length; from += 5000) {
        await transaction.insertInto('tool_parts').values(toolParts.slice(from, from + 5000)).execute();
      }
      options.onProgress?.(Math.min(start + INSERT_CHUNK, validated.length), validated.length);
    }
    // Last chance: an interrupt that came during the final insert still rolls everything back.
    throwIfAborted(options.signal, agentId);
    return { firstSeq, lastSeq, duplicate: false };
  }

  /**
   * The messages the model sees from the agent's latest exchange start to its seq `lastSeq`
   * (all of them when no exchange has started): what an append's tool results may pair with.
   * Read inside the append's transaction, in time that grows with that exchange only.
   */
  async #openExchange(transaction: Transaction<DatabaseSchema>, key: AgentKey, lastSeq: number): Promise<Message[]> {
    const { segments } = await this.#visiblePath(key, formatAgentId(key), transaction, lastSeq);
    let first = 0;
    let fromSeq = segments[0]?.fromSeq ?? 1;
    for (let index = segments.length - 1; index >= 0; index--) {
      const segment = segments[index] as SeqSegment;
      const start = await transaction
        .selectFrom('messages')
        .select(({ fn }) => fn.max<number | null>('seq').as('seq'))
        .where('root_id', '=', key.rootId)
        .where('agent_id', '=', segment.agentId)
        .where('starts_exchange', '=', true)
        .where('seq', '>=', segment.fromSeq)
        .where('seq', '<=', segment.toSeq)
        .executeTakeFirst();
      if (start !== undefined && start.seq !== null) {
        first = index;
        fromSeq = start.seq;
        break;
      }
    }
    const messages: Message[] = [];
    for (let index = first; index < segments.length; index++) {
      const segment = segments[index] as SeqSegment;
      const rows = await this.#modelRows(key.rootId, segment.agentId, transaction)
        .where('seq', '>=', index === first ? fromSeq : segment.fromSeq)
        .where('seq', '<=', segment.toSeq)
        .orderBy('seq')
        .execute();
      for (const row of rows) messages.push(toStoredMessage(key.rootId, segment.agentId, row).message);
    }
    return messages;
  }

  /** Forks an agent at its current last seq: the child sees the parent's history up to there. */
  async fork(agentId: string, meta: Record<string, unknown> = {}, options: { readonly name?: string | undefined } = {}): Promise<string> {
    const key = parseAgentId(agentId);
    const id = randomUUID();
    await this.#write(async () => {
      const parent = await requireAgent(this.#database.db, key);
      const stored = encodeStoredJson({ ...parent.meta, ...meta });
      await this.#database.db
        .insertInto('agents')
        .values({
          root_id: key.rootId,
          id,
          parent_id: key.id,
          fork_seq: parent.last_seq,
          lineage: JSON.stringify([...parent.lineage, key.id]),
          last_seq: 0,
          meta: stored.text,
          meta_escaped: stored.escaped,
          // A name is the user's for one agent: a fork does not inherit it.
          name: options.name ?? null,
        })
        .execute();
    });
    return formatAgentId({ rootId: key.rootId, id });
  }

  /**
   * The history an agent plays: its ancestors' messages up to each fork point, then its own,
   * starting at the most recent `clear` on that path. Events are included, in order, so that
   * `applyEvents` gives what the model sees.
   */
  async history(agentId: string, options: { readonly acrossClears?: boolean | undefined } = {}): Promise<StoredMessage[]> {
    const key = parseAgentId(agentId);
    const stored: StoredMessage[] = [];
    // With `acrossClears`, the whole path back to the root's first message (for an export).
    for (const segment of (await this.#pathSinceClear(key, { acrossClears: options.acrossClears === true })).path) {
      const rows = await this.#rows(key.rootId, segment.agentId)
        .where('seq', '>=', segment.fromSeq)
        .where('seq', '<=', segment.toSeq)
        .orderBy('seq')
        .execute();
      for (const row of rows) stored.push(toStoredMessage(key.rootId, segment.agentId, row));
    }
    return stored;
  }

  /**
   * Reads what a window can hold, in time that grows with the window, not the history: the
   * messages before the first exchange (and the first exchange, for a pinned one), then whole
   * exchanges from the newest back until their stored counts reach `minTokens`. Marks and
   * rewinds are resolved from the event rows alone; the messages a rewind hid are never read.
   * With `after` (the last message a summary covers), the tail stops there, if the model sees it.
   */
  async windowTail(
    agentId: string,
    options: { readonly minTokens: number; readonly withFirstExchange: boolean; readonly after?: MessagePosition | undefined },
  ): Promise<WindowTail> {
    const key = parseAgentId(agentId);
    const { segments, marks, lastSeq } = await this.#visiblePath(key, agentId);

    const head: StoredMessage[] = [];
    let headEnd: { segment: number; seq: number } | undefined;
    let starts = 0;
    const headStarts = options.withFirstExchange ? 1 : 0;
    reading: for (const [index, segment] of segments.entries()) {
      for (let from = segment.fromSeq; from <= segment.toSeq;) {
        const rows = await this.#modelRows(key.rootId, segment.agentId).where('seq', '>=', from).where('seq', '<=', segment.toSeq).orderBy('seq').limit(64).execute();
        if (rows.length === 0) break;
        for (const row of rows) {
          if (row.starts_exchange && ++starts > headStarts) break reading;
          head.push(toStoredMessage(key.rootId, segment.agentId, row));
          headEnd = { segment: index, seq: row.seq };
        }
        from = (rows.at(-1)?.seq ?? segment.toSeq) + 1;
      }
    }

    // The tail starts after the head, and after `options.after` when the model sees it.
    let start = headEnd;
    const after = options.after && segmentPosition(segments, options.after);
    if (after && (!start || after.segment > start.segment || (after.segment === start.segment && after.seq > start.seq))) start = after;
    const newestFirst: StoredMessage[] = [];
    let tokens = 0;
    for (let index = segments.length - 1; index >= (start?.segment ?? 0); index--) {
      const segment = segments[index] as SeqSegment;
      const floor = start?.segment === index ? start.seq + 1 : segment.fromSeq;
      for (let to = segment.toSeq; to >= floor;) {
        const rows = await this.#modelRows(key.rootId, segment.agentId).where('seq', '>=', floor).where('seq', '<=', to).orderBy('seq', 'desc').limit(256).execute();
        if (rows.length === 0) break;
        for (const row of rows) {
          const stored = toStoredMessage(key.rootId, segment.agentId, row);
          newestFirst.push(stored);
          tokens += row.tokens ?? Math.ceil(row.body.length / 4);
          if (row.starts_exchange && tokens >= options.minTokens) return { head, tail: newestFirst.reverse(), complete: false, marks, lastSeq };
        }
        to = (rows.at(-1)?.seq ?? floor) - 1;
      }
    }
    return { head, tail: newestFirst.reverse(), complete: true, marks, lastSeq };
  }

  /**
   * The seq runs of the lineage path the model sees, after clears, marks and rewinds, and the
   * agent's own last seq they were read at; `db` and `lastSeq` as for {@link #pathSinceClear}.
   */
  async #visiblePath(
    key: AgentKey,
    agentId: string,
    db: Kysely<DatabaseSchema> = this.#database.db,
    lastSeq?: number,
  ): Promise<{ segments: SeqSegment[]; marks: (string | undefined)[]; lastSeq: number }> {
    const { path, lastSeq: readAt } = await this.#pathSinceClear(key, { db, lastSeq });
    const events = await Promise.all(
      path.map((segment, index) =>
        db
          .selectFrom('messages')
          .select(['seq', 'kind', 'body_escaped', sql<string | null>`body->>'label'`.as('label')])
          .where('root_id', '=', key.rootId)
          .where('agent_id', '=', segment.agentId)
          .where('kind', 'in', ['mark', 'rewind'])
          .where('seq', '>=', segment.fromSeq)
          .where('seq', '<=', segment.toSeq)
          .orderBy('seq')
          .execute()
          .then((rows) => rows.map((row) => ({ segment: index, seq: row.seq, kind: row.kind as 'mark' | 'rewind', label: labelOf(row) }))),
      ),
    );
    return { ...visibleSegments(path, events.flat(), (event) => `agent ${agentId}, seq ${event.seq} (a rewind)`), lastSeq: readAt };
  }

  /**
   * How many stored messages (events included) lie in what the agent's model sees now: counted
   * from the seq runs after clears, marks and rewinds, without reading them.
   */
  async visibleLength(agentId: string): Promise<number> {
    const { segments } = await this.#visiblePath(parseAgentId(agentId), agentId);
    return segments.reduce((sum, segment) => sum + Math.max(0, segment.toSeq - segment.fromSeq + 1), 0);
  }

  /** Which of `positions` lie in what the agent's model sees now (not hidden by a clear or rewind). */
  async visible(agentId: string, positions: readonly MessagePosition[]): Promise<boolean[]> {
    const key = parseAgentId(agentId);
    const { segments } = await this.#visiblePath(key, agentId);
    return positions.map((position) => segmentPosition(segments, position) !== undefined);
  }

  /**
   * The messages the model sees, outlined from their metadata without reading their bodies:
   * role, stored count, time, the title of an exchange start, and the tool calls and results.
   * Enough to plan a window and draw the history view of a long history quickly.
   */
  async outline(agentId: string): Promise<MessageOutline[]> {
    const key = parseAgentId(agentId);
    const { segments } = await this.#visiblePath(key, agentId);
    const outlined: MessageOutline[] = [];
    for (const segment of segments) {
      // Each read is one aggregated row: PGlite decodes one large value far faster than many rows.
      const [messages, parts] = await Promise.all([
        sql<{ rows: string | null }>`
          select json_agg(json_build_array(seq, kind, tokens, count_target, count_method, count_exact, created_at, title) order by seq)::text as rows
          from messages
          where root_id = ${key.rootId} and agent_id = ${segment.agentId} and seq between ${segment.fromSeq} and ${segment.toSeq}
            and kind in ('system', 'user', 'assistant', 'tool')`.execute(this.#database.db),
        sql<{ rows: string | null }>`
          select json_agg(json_build_array(seq, part_index, type, tool_call_id, tool_name) order by seq, part_index)::text as rows
          from tool_parts
          where root_id = ${key.rootId} and agent_id = ${segment.agentId} and seq between ${segment.fromSeq} and ${segment.toSeq}`.execute(this.#database.db),
      ]);
      const toolParts = new Map<number, OutlinedToolPart[]>();
      for (const [seq, partIndex, type, toolCallId, toolName] of JSON.parse(parts.rows[0]?.rows ?? '[]') as [number, number, OutlinedToolPart['type'], string, string][]) {
        const ofMessage = toolParts.get(seq) ?? [];
        ofMessage.push({ partIndex, type, toolCallId, toolName });
        toolParts.set(seq, ofMessage);
      }
      const publicId = formatAgentId({ rootId: key.rootId, id: segment.agentId });
      type Row = [number, MessageOutline['role'], number | null, string | null, string | null, boolean | null, string, string | null];
      for (const [seq, role, tokens, target, method, exact, createdAt, title] of JSON.parse(messages.rows[0]?.rows ?? '[]') as Row[]) {
        outlined.push({
          agentId: publicId,
          seq,
          role,
          count: tokens === null || target === null ? null : { tokens, exact: exact === true, method: method ?? 'unknown', target },
          createdAt: new Date(createdAt),
          title,
          toolParts: toolParts.get(seq) ?? [],
        });
      }
    }
    return outlined;
  }

  /**
   * Every stored row of the path an agent plays, events included, without bodies: since its
   * latest clear, or with `acrossClears` back to its root's first message. With the forks along
   * the path and those made from the agent itself, for the history view.
   */
  async timeline(agentId: string, options: { readonly acrossClears?: boolean | undefined } = {}): Promise<{ entries: TimelineEntry[]; forks: TimelineFork[] }> {
    const key = parseAgentId(agentId);
    const { path } = await this.#pathSinceClear(key, { acrossClears: options.acrossClears === true });
    const entries: TimelineEntry[] = [];
    for (const segment of path) {
      const [messages, parts] = await Promise.all([
        sql<{ rows: string | null }>`
          select json_agg(json_build_array(seq, kind, tokens, created_at, starts_exchange, title, case when kind in ('mark', 'rewind') then body->>'label' end) order by seq)::text as rows
          from messages
          where root_id = ${key.rootId} and agent_id = ${segment.agentId} and seq between ${segment.fromSeq} and ${segment.toSeq}`.execute(this.#database.db),
        sql<{ rows: string | null }>`
          select json_agg(json_build_array(seq, tool_name) order by seq, part_index)::text as rows
          from tool_parts
          where root_id = ${key.rootId} and agent_id = ${segment.agentId} and seq between ${segment.fromSeq} and ${segment.toSeq} and type = 'tool-call'`.execute(this.#database.db),
      ]);
      const toolNames = new Map<number, string[]>();
      for (const [seq, name] of JSON.parse(parts.rows[0]?.rows ?? '[]') as [number, string][]) toolNames.set(seq, [...(toolNames.get(seq) ?? []), name]);
      const publicId = formatAgentId({ rootId: key.rootId, id: segment.agentId });
      type Row = [number, string, number | null, string, boolean, string | null, string | null];
      for (const [seq, kind, tokens, createdAt, startsExchange, title, label] of JSON.parse(messages.rows[0]?.rows ?? '[]') as Row[]) {
        const names = toolNames.get(seq) ?? [];
        entries.push({ agentId: publicId, seq, kind, label, tokens, createdAt: new Date(createdAt), startsExchange, title, toolNames: names });
      }
    }
    const onPath = new Map(path.map((segment) => [segment.agentId, segment]));
    const children = await this.#database.db
      .selectFrom('agents')
      .select(['id', 'parent_id', 'fork_seq', 'name', 'created_at'])
      .where('root_id', '=', key.rootId)
      .where('parent_id', 'in', [...onPath.keys()])
      .orderBy('created_at')
      .execute();
    const forks = children
      .filter((child) => {
        const segment = onPath.get(child.parent_id ?? '');
        // Forks along the path, and those made from the agent itself; not a sibling's elsewhere.
        if (segment === undefined || child.fork_seq === null) return false;
        return (onPath.has(child.id) || child.parent_id === key.id) && child.fork_seq >= segment.fromSeq - 1 && child.fork_seq <= segment.toSeq;
      })
      .map((child) => ({
        parentId: formatAgentId({ rootId: key.rootId, id: child.parent_id ?? '' }),
        seq: child.fork_seq ?? 0,
        childId: formatAgentId({ rootId: key.rootId, id: child.id }),
        childName: child.name,
        createdAt: new Date(child.created_at),
      }));
    return { entries, forks };
  }

  /**
   * Which of `toolCallIds` a tool call in the agent's visible history already uses: an id used
   * twice would make the history unplannable (`DUPLICATE_TOOL_CALL_ID`). Found by index.
   */
  async usedToolCallIds(agentId: string, toolCallIds: readonly string[]): Promise<Set<string>> {
    if (toolCallIds.length === 0) return new Set();
    const key = parseAgentId(agentId);
    const rows = await this.#database.db
      .selectFrom('tool_parts')
      .select(['agent_id', 'seq', 'tool_call_id'])
      .where('root_id', '=', key.rootId)
      .where('tool_call_id', 'in', [...new Set(toolCallIds)])
      .where('type', '=', 'tool-call')
      .execute();
    if (rows.length === 0) return new Set();
    const { segments } = await this.#visiblePath(key, agentId);
    return new Set(rows.filter((row) => segmentIndex(segments, row.agent_id, row.seq) !== -1).map((row) => row.tool_call_id));
  }

  /** Rows of one agent of a tree, every column a stored message needs; `db` may be a transaction. */
  #rows(rootId: string, agentId: string, db: Kysely<DatabaseSchema> = this.#database.db) {
    return db
      .selectFrom('messages')
      // The body as text, parsed here: several times faster than PGlite's own jsonb decoding.
      .select(['seq', sql<string>`body::text`.as('body'), 'body_escaped', 'tokens', 'count_target', 'count_method', 'count_exact', 'created_at', 'starts_exchange'])
      .where('root_id', '=', rootId)
      .where('agent_id', '=', agentId);
  }

  /** {@link #rows} without events: the messages a model is sent. */
  #modelRows(rootId: string, agentId: string, db: Kysely<DatabaseSchema> = this.#database.db) {
    return this.#rows(rootId, agentId, db).where('kind', 'in', ['system', 'user', 'assistant', 'tool']);
  }

  /**
   * The seq runs an agent replays, root side first: each ancestor up to the seq its child forked
   * at, then the agent itself, starting at the most recent `clear` on that path (included).
   * `db` may be a transaction; `lastSeq` ends the agent's own run (default: its last seq now);
   * `acrossClears` goes back to the root's first message instead of stopping at a clear.
   */
  async #pathSinceClear(
    key: AgentKey,
    { db = this.#database.db, lastSeq, acrossClears = false }: { db?: Kysely<DatabaseSchema>; lastSeq?: number | undefined; acrossClears?: boolean } = {},
  ): Promise<{ path: SeqSegment[]; lastSeq: number }> {
    const leaf = await requireAgent(db, key);
    const chain = await db
      .selectFrom('agents')
      .select(['id', 'fork_seq', 'parent_id'])
      .where('root_id', '=', key.rootId)
      .where('id', 'in', [...leaf.lineage, key.id])
      .execute();
    const byId = new Map(chain.map((row) => [row.id, row]));
    const path: SeqSegment[] = [];
    let upTo = lastSeq ?? leaf.last_seq;
    for (let current: string | null = key.id; current !== null;) {
      const agent = byId.get(current);
      if (!agent) break;
      const clear = await db
        .selectFrom('messages')
        .select(({ fn }) => fn.max('seq').as('seq'))
        .where('root_id', '=', key.rootId)
        .where('agent_id', '=', current)
        .where('kind', '=', 'clear')
        .where('seq', '<=', upTo)
        .executeTakeFirst();
      const clearSeq = acrossClears ? undefined : (clear?.seq ?? undefined);
      path.unshift({ agentId: current, fromSeq: clearSeq ?? 1, toSeq: upTo });
      if (clearSeq !== undefined) break;
      upTo = agent.fork_seq ?? 0;
      current = agent.parent_id;
    }
    return { path, lastSeq: lastSeq ?? leaf.last_seq };
  }

  /**
   * Records ranges of an agent's history that its window evicted, readmitted or summarized. They
   * are a record only: the messages stay, and the window is recomputed from them.
   */
  async recordRanges(agentId: string, ranges: readonly ContextRangeInput[]): Promise<void> {
    const key = parseAgentId(agentId);
    if (ranges.length === 0) return;
    const idOf = (publicId: string) => parseAgentId(publicId).id;
    await this.#write(() => this.#database.db
      .insertInto('context_ranges')
      .values(
        ranges.map((range) => ({
          root_id: key.rootId,
          agent_id: key.id,
          id: randomUUID(),
          kind: range.kind,
          first_agent_id: idOf(range.first.agentId),
          first_seq: range.first.seq,
          last_agent_id: idOf(range.last.agentId),
          last_seq: range.last.seq,
          ...storedRangeBody(range.data ?? {}),
        })),
      )
      .execute());
  }

  /** The ranges recorded for an agent, oldest first; `kind` keeps one kind only. */
  async ranges(agentId: string, filter: { readonly kind?: string | undefined; readonly inherited?: boolean | undefined } = {}): Promise<ContextRange[]> {
    const key = parseAgentId(agentId);
    // With `inherited`, each ancestor's ranges recorded up to the fork that leads here, too.
    const scopes: { id: string; until?: Date }[] = [{ id: key.id }];
    if (filter.inherited === true) {
      const { lineage } = await requireAgent(this.#database.db, key);
      const path = [...lineage, key.id];
      if (path.length > 1) {
        const rows = await this.#database.db.selectFrom('agents').select(['id', 'created_at']).where('root_id', '=', key.rootId).where('id', 'in', path).execute();
        const created = new Map(rows.map((row) => [row.id, new Date(row.created_at)]));
        for (let index = path.length - 2; index >= 0; index--) {
          scopes.push({ id: path[index] as string, until: created.get(path[index + 1] as string) as Date });
        }
      }
    }
    let query = this.#database.db.selectFrom('context_ranges').selectAll().where('root_id', '=', key.rootId)
      .where((eb) => eb.or(scopes.map((scope) => eb.and([eb('agent_id', '=', scope.id), ...(scope.until ? [eb('created_at', '<=', scope.until)] : [])]))));
    if (filter.kind !== undefined) query = query.where('kind', '=', filter.kind);
    const rows = await query.orderBy('created_at').orderBy('first_seq').execute();
    const publicId = (id: string | null, owner: string) => formatAgentId({ rootId: key.rootId, id: id ?? owner });
    return rows.map((row) => ({
      kind: row.kind,
      first: { agentId: publicId(row.first_agent_id, row.agent_id), seq: row.first_seq },
      last: { agentId: publicId(row.last_agent_id, row.agent_id), seq: row.last_seq },
      data: rangeData(row.body, row.body_escaped),
      createdAt: new Date(row.created_at),
    }));
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
  async listAgents(): Promise<AgentSummary[]> {
    const agents = await this.#agentTotals();
    const [firsts, tree] = await Promise.all([
      this.#database.db
        .selectFrom('messages')
        .select(['root_id', 'agent_id', 'seq', 'title'])
        .distinctOn(['root_id', 'agent_id'])
        .where('starts_exchange', '=', true)
        .orderBy('root_id')
        .orderBy('agent_id')
        .orderBy('seq')
        .execute(),
      this.#database.db.selectFrom('agents').select(['root_id', 'id', 'name', 'fork_seq', 'meta']).execute(),
    ]);
    const keyOf = (rootId: string, id: string) => `${rootId}/${id}`;
    const first = new Map(firsts.map((row) => [keyOf(row.root_id, row.agent_id), row]));
    const row = new Map(tree.map((agent) => [keyOf(agent.root_id, agent.id), agent]));
    const byId = new Map(agents.map((agent) => [agent.agentId, agent]));
    /** Messages an agent sees up to `upTo` of its own seqs (all of them without it), and the first title there. */
    const seen = (agentId: string, upTo: number | undefined): { messages: number; title: string | null } => {
      const agent = byId.get(agentId);
      if (!agent) return { messages: 0, title: null };
      const { rootId, id } = parseAgentId(agentId);
      const own = first.get(keyOf(rootId, id));
      const inherited = agent.parentId === null ? { messages: 0, title: null } : seen(agent.parentId, row.get(keyOf(rootId, id))?.fork_seq ?? 0);
      const ownTitle = own && (upTo === undefined || own.seq <= upTo) ? own.title : null;
      // Seqs are gapless from 1: an agent's first n seqs are n messages.
      return { messages: inherited.messages + (upTo === undefined ? agent.messages : Math.min(upTo, agent.messages)), title: inherited.title ?? ownTitle };
    };
    return agents.map((agent) => {
      const { rootId, id } = parseAgentId(agent.agentId);
      const stored = row.get(keyOf(rootId, id));
      const all = seen(agent.agentId, undefined);
      const meta = stored?.meta ?? {};
      return {
        ...agent,
        name: stored?.name ?? null,
        forkSeq: stored?.fork_seq ?? null,
        inheritedMessages: all.messages - agent.messages,
        title: all.title,
        provider: typeof meta.provider === 'string' ? meta.provider : null,
        model: typeof meta.model === 'string' ? meta.model : null,
      };
    });
  }

  /** Every agent's own message count, stored tokens and last activity. */
  async #agentTotals(): Promise<Pick<AgentSummary, 'agentId' | 'parentId' | 'messages' | 'tokens' | 'lastActivity'>[]> {
    const rows = await this.#database.db
      .selectFrom('agents')
      .leftJoin('messages', (join) => join.onRef('messages.root_id', '=', 'agents.root_id').onRef('messages.agent_id', '=', 'agents.id'))
      .select(({ fn }) => [
        'agents.root_id',
        'agents.id',
        'agents.parent_id',
        'agents.created_at',
        fn.count<string>('messages.seq').as('messages'),
        fn.coalesce(fn.sum<string>('messages.tokens'), sql<string>`0`).as('tokens'),
        fn.max('messages.created_at').as('last_message'),
      ])
      .groupBy(['agents.root_id', 'agents.id', 'agents.parent_id', 'agents.created_at'])
      .orderBy('agents.created_at')
      .execute();
    return rows.map((row) => ({
      agentId: formatAgentId({ rootId: row.root_id, id: row.id }),
      parentId: row.parent_id === null ? null : formatAgentId({ rootId: row.root_id, id: row.parent_id }),
      messages: Number(row.messages),
      tokens: Number(row.tokens),
      lastActivity: new Date(row.last_message ?? row.created_at),
    }));
  }

  /**
   * Derives a value from the store and, on a PGlite directory, saves `toJson(value)` as the
   * agent's view `name`, which `readSavedView` gives back without starting PGlite until the next
   * write. Nothing is saved when a write ran while the value was derived.
   */
  async deriveSavedView<Value>(agentId: string, name: string, derive: () => Promise<Value>, toJson: (value: Value) => unknown): Promise<Value> {
    const writesBefore = this.#writesStarted;
    const quiet = this.#writesRunning === 0;
    const value = await derive();
    const { dataDir } = this.#database;
    if (dataDir !== undefined && quiet && this.#writesStarted === writesBefore) {
      const json = toJson(value);
      try {
        saveView(dataDir, name, agentId, json);
      } catch {
        // A view that could not be saved (a full disk, say) is only missing: readers use the store.
      }
    }
    return value;
  }

  /** Runs a write. The saved views are dropped before it, so that none outlives its data. */
  async #write<Result>(work: () => Promise<Result>): Promise<Result> {
    if (this.#database.dataDir !== undefined) dropSavedViews(this.#database.dataDir);
    this.#writesStarted++;
    this.#writesRunning++;
    try {
      return await work();
    } finally {
      this.#writesRunning--;
    }
  }

  /**
   * Closes the database (and, for PGlite, writes it out and releases the directory lock), after
   * any transaction still running and any operation served to another process. Closing again
   * returns the same promise.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      try {
        await this.#service?.stop();
      } finally {
        await this.#database.close();
      }
    })();
    return this.#closing;
  }
}
