/**
 * Appending messages: the checks made before anything is written, the rows written, and the
 * pairing check against the exchange an append joins, all inside the append's transaction.
 */
import { type Compilable, CompiledQuery, type Transaction } from 'kysely';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import { exchangeTitle } from '../exchange/describe-exchange.js';
import { startsExchange } from '../exchange/detect-exchanges.js';
import { pairingError } from '../exchange/require-valid-conversation.js';
import { toolCallsOf, toolResultsOf } from '../exchange/tool-parts.js';
import { type Message, messageSchema } from '../message/message.js';
import { pinEventsFor } from '../window/pinned-message.js';
import { countTargetKey } from '../tokens/token-counter.js';
import { type AgentKey, formatAgentId } from './agent-id.js';
import { insertRanges, rangeRows } from './context-ranges.js';
import type { DatabaseSchema } from './database-schema.js';
import { findAppendPairingProblem, needsOpenExchange } from './find-append-pairing-problem.js';
import type { AppendOptions, AppendResult, StoredCount } from './history-store-types.js';
import { visiblePath } from './lineage.js';
import { type AppendTip, openExchangeAfter, pairingSkeleton } from './append-tips.js';
import { digestsAfterRewind, insertPrefixRows, planAppendDigests, type PrefixRow, type PrefixState, prefixRowValues } from './prefix-digests.js';
import { requireStorableIdentifiers } from './require-storable-identifiers.js';
import { encodeStoredJson, storableDisplayText } from './stored-json.js';
import { modelMessageRows, type StoreDatabase, toStoredMessage, unknownAgent } from './stored-rows.js';
import type { SeqSegment } from './visible-segments.js';

/** Rows per INSERT statement: large appends go in several statements of one transaction. */
const INSERT_CHUNK = 1000;

/** Throws `ABORTED` once `signal` is aborted: the transaction it is thrown in rolls back. */
export function throwIfAborted(signal: AbortSignal | undefined, agentId: string): void {
  if (signal?.aborted === true) {
    throw new SlidingContextError('ABORTED', `The append to agent ${agentId} was interrupted before it committed; nothing of it was stored.`, { cause: signal.reason });
  }
}

/** The messages of an append, checked before anything is written. */
export function validateAppend(messages: readonly Message[], options: AppendOptions): Message[] {
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
 * With `options.pinned`, the messages followed by a `pin` event for each model message, and the
 * options with a null count and no date for each event; otherwise both as given.
 * @throws SlidingContextError `INVALID_PIN` for a message that cannot be pinned
 */
export function withPinEvents(messages: Message[], options: AppendOptions): [Message[], AppendOptions] {
  if (options.pinned !== true) return [messages, options];
  const events = pinEventsFor(messages);
  const none = events.map(() => null);
  return [
    [...messages, ...events],
    {
      ...options,
      ...(options.counts === undefined ? {} : { counts: [...options.counts, ...none] }),
      ...(options.createdAt === undefined ? {} : { createdAt: [...options.createdAt, ...events.map(() => undefined)] }),
    },
  ];
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

/** The `tool_parts` rows of messages whose first one is stored at `firstSeq`. */
function toolPartRows(key: AgentKey, messages: readonly Message[], firstSeq: number) {
  return messages.flatMap((message, offset) =>
    [...toolCallsOf(message), ...toolResultsOf(message)].map(({ part, partIndex }) => ({
      root_id: key.rootId,
      agent_id: key.id,
      seq: firstSeq + offset,
      part_index: partIndex,
      type: part.type,
      tool_call_id: part.toolCallId,
      tool_name: part.toolName,
    })),
  );
}

/** The most parameters one statement takes (PostgreSQL's limit is 65,535). */
const STATEMENT_PARAMETERS = 60_000;

/**
 * Writes as one statement, all but the last as data-modifying CTEs of the last: PGlite spends
 * about as much on each statement of a transaction as on the rows it writes, so a short append
 * costs one statement instead of four. No write reads another's rows (they all see the snapshot
 * the statement started with); the statement gives the last write's rows. Undefined when the
 * writes take too many parameters.
 */
export function asOneStatement(writes: readonly Compilable[]): CompiledQuery | undefined {
  const parts: string[] = [];
  const parameters: unknown[] = [];
  for (const write of writes) {
    const compiled = write.compile();
    const offset = parameters.length;
    parts.push(offset === 0 ? compiled.sql : compiled.sql.replace(/\$(\d+)/g, (_, index: string) => `$${String(Number(index) + offset)}`));
    for (const parameter of compiled.parameters) parameters.push(parameter);
  }
  if (parameters.length > STATEMENT_PARAMETERS) return undefined;
  const last = parts.pop() ?? '';
  const text = parts.length === 0 ? last : `with ${parts.map((part, index) => `write_${String(index)} as (${part})`).join(', ')} ${last}`;
  return CompiledQuery.raw(text, parameters);
}

/** `items` in runs of `size`. */
function chunks<Item>(items: readonly Item[], size: number): Item[][] {
  const runs: Item[][] = [];
  for (let start = 0; start < items.length; start += size) runs.push(items.slice(start, start + size));
  return runs;
}

/** Where an append starts: the agent's last seq and the chain of what its model sees. */
export interface AppendStart {
  readonly lastSeq: number;
  readonly prefix: PrefixState;
}

/** An append, and the agent's tip after it (none after a retried idempotency key). */
export interface AppendDone {
  readonly result: AppendResult;
  readonly tip: AppendTip | undefined;
}

/** An append without a rewind, ready to write: its rows, and the agent's update. */
export interface PlannedWrites {
  readonly rows: Compilable[];
  /** Sets the agent's last seq and tip, where its last seq is still the one the append started from (returning it). */
  readonly update: Compilable;
}

/** The writes of an append of `validated` (no rewind among them) after `start`, whose new prefix rows and tip are `planned`. */
export function plannedWrites(
  db: StoreDatabase,
  key: AgentKey,
  validated: readonly Message[],
  options: AppendOptions,
  start: AppendStart,
  planned: { readonly rows: readonly PrefixRow[]; readonly tip: PrefixState },
): PlannedWrites {
  const firstSeq = start.lastSeq + 1;
  const toolParts = toolPartRows(key, validated, firstSeq);
  const rows = messageRowsOf(key, validated, options, firstSeq);
  return {
    rows: [
      db.insertInto('messages').values(rows),
      // 7 parameters a row: 5,000 rows stay under PostgreSQL's 65,535 per statement.
      ...chunks(toolParts, 5000).map((chunk) => db.insertInto('tool_parts').values(chunk)),
      ...(planned.rows.length > 0 ? [db.insertInto('prefix_digests').values(prefixRowValues(key, planned.rows))] : []),
      ...(options.ranges !== undefined && options.ranges.length > 0 ? [db.insertInto('context_ranges').values(rangeRows(key, options.ranges))] : []),
    ],
    update: db
      .updateTable('agents')
      .set({ last_seq: start.lastSeq + validated.length, prefix_digest: planned.tip.digest, prefix_length: planned.tip.length })
      .where('root_id', '=', key.rootId)
      .where('id', '=', key.id)
      .where('last_seq', '=', start.lastSeq)
      .returning('last_seq'),
  };
}

/**
 * The rows of the batch `validated` (its first message stored at `firstSeq`) from its `from`th
 * message to before its `to`th: with their counts, the batch's key and their dates.
 */
function messageRowsOf(key: AgentKey, validated: readonly Message[], options: AppendOptions, firstSeq: number, from = 0, to = validated.length) {
  const target = options.countTarget === undefined ? null : countTargetKey(options.countTarget);
  return validated.slice(from, to).map((message, offset) => {
    const index = from + offset;
    const count = target === null ? null : (options.counts?.[index] ?? null);
    const stored = count && target !== null ? { ...count, target } : null;
    // Only the first row carries the key: the unique index allows one per agent.
    return messageRow(key, firstSeq + index, message, stored, index === 0 ? (options.idempotencyKey ?? null) : null, options.createdAt?.[index]);
  });
}

/** The body of an append, inside its transaction; see `HistoryStore.append`. */
export async function appendInTransaction(
  transaction: Transaction<DatabaseSchema>,
  key: AgentKey,
  validated: readonly Message[],
  options: AppendOptions,
  /** PGlite: the writes after the agent's row is locked go as one statement (see {@link asOneStatement}). */
  oneStatement = false,
): Promise<AppendDone> {
  const agentId = formatAgentId(key);
  // The agent's row is locked first: writers of one agent queue here, so that what they check
  // next (a retried key, the last seq, the exchange appended to) cannot change under them.
  const agent = await transaction
    .selectFrom('agents')
    .select(['last_seq', 'prefix_digest', 'prefix_length'])
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
    if (seen) return { result: { firstSeq: seen.seq, lastSeq: seen.seq + validated.length - 1, duplicate: true }, tip: undefined };
  }
  if (options.expectedLastSeq !== undefined && agent.last_seq !== options.expectedLastSeq) {
    throw new SlidingContextError(
      'STALE_WINDOW',
      `Agent ${agentId} moved on past seq ${String(options.expectedLastSeq)}: another writer appended first; reload the window and try again.`,
    );
  }
  const readExchange = needsOpenExchange(validated) ? await readOpenExchange(transaction, key, agent.last_seq) : undefined;
  const problem = findAppendPairingProblem(readExchange ?? [], validated);
  if (problem && problem.code !== 'MISSING_TOOL_RESULT' && problem.code !== 'DUPLICATE_TOOL_CALL_ID') throw pairingError({ ...problem, code: problem.code });
  const start = { lastSeq: agent.last_seq, prefix: { digest: agent.prefix_digest, length: agent.prefix_length } };
  const firstSeq = agent.last_seq + 1;
  const lastSeq = agent.last_seq + validated.length;
  const result = { firstSeq, lastSeq, duplicate: false };
  const tipAfter = (prefix: PrefixState): AppendTip => ({ lastSeq, prefix, openExchange: openExchangeAfter(readExchange?.map(pairingSkeleton), validated) });
  // The prefix index follows in the same transaction: the agent's new tip, and a row per user message.
  const planned = planAppendDigests(start.prefix, validated, firstSeq);
  if (oneStatement && planned !== undefined && validated.length > 0 && validated.length <= INSERT_CHUNK) {
    throwIfAborted(options.signal, agentId);
    const { rows, update } = plannedWrites(transaction, key, validated, options, start, planned);
    const statement = asOneStatement([...rows, update]);
    if (statement) {
      await transaction.executeQuery(statement);
      options.onProgress?.(validated.length, validated.length);
      throwIfAborted(options.signal, agentId);
      return { result, tip: tipAfter(planned.tip) };
    }
  }
  const tip = planned === undefined ? {} : { prefix_digest: planned.tip.digest, prefix_length: planned.tip.length };
  await transaction.updateTable('agents').set({ last_seq: lastSeq, ...tip }).where('root_id', '=', key.rootId).where('id', '=', key.id).execute();
  for (let from = 0; from < validated.length; from += INSERT_CHUNK) {
    throwIfAborted(options.signal, agentId);
    await transaction.insertInto('messages').values(messageRowsOf(key, validated, options, firstSeq, from, from + INSERT_CHUNK)).execute();
    // 7 parameters a row: 5,000 rows stay under PostgreSQL's 65,535 per statement.
    for (const toolParts of chunks(toolPartRows(key, validated.slice(from, from + INSERT_CHUNK), firstSeq + from), 5000)) {
      await transaction.insertInto('tool_parts').values(toolParts).execute();
    }
    options.onProgress?.(Math.min(from + INSERT_CHUNK, validated.length), validated.length);
  }
  let prefix: PrefixState;
  if (planned !== undefined) {
    await insertPrefixRows(transaction, key, planned.rows);
    prefix = planned.tip;
  } else {
    // A rewind: what the model sees is read from the path, now that the events are written.
    const after = await digestsAfterRewind(transaction, key, firstSeq, lastSeq, validated);
    await insertPrefixRows(transaction, key, after.rows);
    await transaction.updateTable('agents').set({ prefix_digest: after.tip.digest, prefix_length: after.tip.length }).where('root_id', '=', key.rootId).where('id', '=', key.id).execute();
    prefix = after.tip;
  }
  if (options.ranges !== undefined && options.ranges.length > 0) await insertRanges(transaction, key, options.ranges);
  // Last chance: an interrupt that came during the final insert still rolls everything back.
  throwIfAborted(options.signal, agentId);
  return { result, tip: tipAfter(prefix) };
}

/**
 * The messages the model sees from the agent's latest exchange start to its seq `lastSeq`
 * (all of them when no exchange has started): what an append's tool results may pair with.
 * Read inside the append's transaction, in time that grows with that exchange only.
 */
async function readOpenExchange(transaction: Transaction<DatabaseSchema>, key: AgentKey, lastSeq: number): Promise<Message[]> {
  const { segments } = await visiblePath(transaction, key, formatAgentId(key), lastSeq);
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
    const rows = await modelMessageRows(transaction, key.rootId, segment.agentId)
      .where('seq', '>=', index === first ? fromSeq : segment.fromSeq)
      .where('seq', '<=', segment.toSeq)
      .orderBy('seq')
      .execute();
    for (const row of rows) messages.push(toStoredMessage(key.rootId, segment.agentId, row).message);
  }
  return messages;
}
