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
import { digestsAfterRewind, insertPrefixRows, planAppendDigests, prefixRowValues } from './prefix-digests.js';
import { requireStorableIdentifiers } from './require-storable-identifiers.js';
import { encodeStoredJson, storableDisplayText } from './stored-json.js';
import { modelMessageRows, toStoredMessage, unknownAgent } from './stored-rows.js';
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
 * Runs writes as one statement, all but the last as data-modifying CTEs of the last: PGlite
 * spends about as much on each statement of a transaction as on the rows it writes, so a short
 * append costs one statement instead of four. No write reads another's rows (they all see the
 * snapshot the statement started with). False, and nothing run, when they take too many parameters.
 */
async function runAsOneStatement(transaction: Transaction<DatabaseSchema>, writes: readonly Compilable[]): Promise<boolean> {
  const parts: string[] = [];
  const parameters: unknown[] = [];
  for (const write of writes) {
    const compiled = write.compile();
    const offset = parameters.length;
    parts.push(offset === 0 ? compiled.sql : compiled.sql.replace(/\$(\d+)/g, (_, index: string) => `$${String(Number(index) + offset)}`));
    for (const parameter of compiled.parameters) parameters.push(parameter);
  }
  if (parameters.length > STATEMENT_PARAMETERS) return false;
  const last = parts.pop() ?? '';
  const text = parts.length === 0 ? last : `with ${parts.map((part, index) => `write_${String(index)} as (${part})`).join(', ')} ${last}`;
  await transaction.executeQuery(CompiledQuery.raw(text, parameters));
  return true;
}

/** The body of an append, inside its transaction; see `HistoryStore.append`. */
export async function appendInTransaction(
  transaction: Transaction<DatabaseSchema>,
  key: AgentKey,
  validated: readonly Message[],
  options: AppendOptions,
  /** PGlite: the writes after the agent's row is locked go as one statement (see {@link runAsOneStatement}). */
  oneStatement = false,
): Promise<AppendResult> {
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
    if (seen) return { firstSeq: seen.seq, lastSeq: seen.seq + validated.length - 1, duplicate: true };
  }
  if (options.expectedLastSeq !== undefined && agent.last_seq !== options.expectedLastSeq) {
    throw new SlidingContextError(
      'STALE_WINDOW',
      `Agent ${agentId} moved on past seq ${String(options.expectedLastSeq)}: another writer appended first; reload the window and try again.`,
    );
  }
  const openExchange = needsOpenExchange(validated) ? await readOpenExchange(transaction, key, agent.last_seq) : [];
  const problem = findAppendPairingProblem(openExchange, validated);
  if (problem && problem.code !== 'MISSING_TOOL_RESULT' && problem.code !== 'DUPLICATE_TOOL_CALL_ID') throw pairingError({ ...problem, code: problem.code });
  const firstSeq = agent.last_seq + 1;
  const lastSeq = agent.last_seq + validated.length;
  // The prefix index follows in the same transaction: the agent's new tip, and a row per user message.
  const planned = planAppendDigests({ digest: agent.prefix_digest, length: agent.prefix_length }, validated, firstSeq);
  const tip = planned === undefined ? {} : { prefix_digest: planned.tip.digest, prefix_length: planned.tip.length };
  const target = options.countTarget === undefined ? null : countTargetKey(options.countTarget);
  const rowAt = (message: Message, index: number) => {
    const count = target === null ? null : (options.counts?.[index] ?? null);
    const stored = count && target !== null ? { ...count, target } : null;
    // Only the first row carries the key: the unique index allows one per agent.
    return messageRow(key, firstSeq + index, message, stored, index === 0 ? (options.idempotencyKey ?? null) : null, options.createdAt?.[index]);
  };
  if (oneStatement && planned !== undefined && validated.length > 0 && validated.length <= INSERT_CHUNK) {
    throwIfAborted(options.signal, agentId);
    const toolParts = toolPartRows(key, validated, firstSeq);
    const writes: Compilable[] = [
      transaction.updateTable('agents').set({ last_seq: lastSeq, ...tip }).where('root_id', '=', key.rootId).where('id', '=', key.id),
      ...(toolParts.length > 0 ? [transaction.insertInto('tool_parts').values(toolParts)] : []),
      ...(planned.rows.length > 0 ? [transaction.insertInto('prefix_digests').values(prefixRowValues(key, planned.rows))] : []),
      ...(options.ranges !== undefined && options.ranges.length > 0 ? [transaction.insertInto('context_ranges').values(rangeRows(key, options.ranges))] : []),
      transaction.insertInto('messages').values(validated.map(rowAt)),
    ];
    if (await runAsOneStatement(transaction, writes)) {
      options.onProgress?.(validated.length, validated.length);
      throwIfAborted(options.signal, agentId);
      return { firstSeq, lastSeq, duplicate: false };
    }
  }
  await transaction.updateTable('agents').set({ last_seq: lastSeq, ...tip }).where('root_id', '=', key.rootId).where('id', '=', key.id).execute();
  for (let start = 0; start < validated.length; start += INSERT_CHUNK) {
    throwIfAborted(options.signal, agentId);
    const chunk = validated.slice(start, start + INSERT_CHUNK);
    await transaction
      .insertInto('messages')
      .values(chunk.map((message, offset) => rowAt(message, start + offset)))
      .execute();
    const toolParts = toolPartRows(key, chunk, firstSeq + start);
    // 7 parameters a row: 5,000 rows stay under PostgreSQL's 65,535 per statement.
    for (let from = 0; from < toolParts.length; from += 5000) {
      await transaction.insertInto('tool_parts').values(toolParts.slice(from, from + 5000)).execute();
    }
    options.onProgress?.(Math.min(start + INSERT_CHUNK, validated.length), validated.length);
  }
  if (planned !== undefined) await insertPrefixRows(transaction, key, planned.rows);
  else {
    // A rewind: what the model sees is read from the path, now that the events are written.
    const after = await digestsAfterRewind(transaction, key, firstSeq, lastSeq, validated);
    await insertPrefixRows(transaction, key, after.rows);
    await transaction.updateTable('agents').set({ prefix_digest: after.tip.digest, prefix_length: after.tip.length }).where('root_id', '=', key.rootId).where('id', '=', key.id).execute();
  }
  if (options.ranges !== undefined && options.ranges.length > 0) await insertRanges(transaction, key, options.ranges);
  // Last chance: an interrupt that came during the final insert still rolls everything back.
  throwIfAborted(options.signal, agentId);
  return { firstSeq, lastSeq, duplicate: false };
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
