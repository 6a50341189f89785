/**
 * Appending from the agent's tip (see `append-tips.ts`): planned and checked without reading the
 * store, written with the agent's update naming the last seq it started from, and made the long
 * way (`appendInTransaction`) when the tip is missing, cannot serve, or went stale.
 */
import type { Transaction } from 'kysely';
import type { GuardedWrite } from './direct-transaction.js';
import { errorCode } from '../errors/error-code.js';
import { isSlidingContextError, SlidingContextError } from '../errors/sliding-context-error.js';
import type { Message } from '../message/message.js';
import type { AgentKey } from './agent-id.js';
import { type AppendDone, appendInTransaction, asOneStatement, plannedWrites, type PlannedWrites, throwIfAborted } from './append.js';
import { type AppendTip, type AppendTips, openExchangeAfter } from './append-tips.js';
import type { DatabaseSchema } from './database-schema.js';
import { findAppendPairingProblem, needsOpenExchange } from './find-append-pairing-problem.js';
import type { AppendOptions, AppendResult } from './history-store-types.js';
import { planAppendDigests } from './prefix-digests.js';
import type { StoreDatabase } from './stored-rows.js';

/** Most messages an append made from a tip holds: a longer batch goes the long way. */
const TIP_APPEND_MESSAGES = 100;

/** An append planned from the agent's tip, and the tip after it. */
export interface TipAppend {
  readonly writes: PlannedWrites;
  readonly result: AppendResult;
  readonly tip: AppendTip;
}

/**
 * Plans an append from the agent's tip (see `append-tips.ts`), checked against the tip as the long
 * way checks against the stored agent. Undefined when it needs what only the store holds: an
 * idempotency key to look up, a rewind, the exchange a tool result joins when the tip lacks it, a
 * pairing problem (the long way reports it from the stored history), a last seq other than the
 * one expected (the long way tells a moved agent from a stale tip), or an empty or long batch.
 */
export function planAppendFromTip(
  db: StoreDatabase,
  key: AgentKey,
  validated: readonly Message[],
  options: AppendOptions,
  tip: AppendTip,
): TipAppend | undefined {
  if (validated.length === 0 || validated.length > TIP_APPEND_MESSAGES || options.idempotencyKey !== undefined) return undefined;
  if (options.expectedLastSeq !== undefined && options.expectedLastSeq !== tip.lastSeq) return undefined;
  const openExchange = needsOpenExchange(validated) ? tip.openExchange : [];
  if (openExchange === undefined) return undefined;
  if (findAppendPairingProblem(openExchange, validated)) return undefined;
  const firstSeq = tip.lastSeq + 1;
  const planned = planAppendDigests(tip.prefix, validated, firstSeq);
  if (planned === undefined) return undefined;
  const lastSeq = tip.lastSeq + validated.length;
  return {
    writes: plannedWrites(db, key, validated, options, tip, planned),
    result: { firstSeq, lastSeq, duplicate: false },
    tip: { lastSeq, prefix: planned.tip, openExchange: openExchangeAfter(tip.openExchange, validated) },
  };
}

/** True for the error of a write that collided with a row another writer stored (a unique key). */
function isUniqueViolation(error: unknown): boolean {
  return errorCode(error) === '23505';
}

/**
 * The statements of an append planned from a tip, guarded by the agent's update naming the last
 * seq the tip holds: on PGlite one statement, the update last (it returns the row it updated);
 * on a server the update first (it takes the agent's row lock), then the rows.
 */
export function tipWrite(planned: TipAppend, oneStatement: boolean): GuardedWrite {
  const { rows, update } = planned.writes;
  const statement = oneStatement ? asOneStatement([...rows, update]) : undefined;
  // Past one statement's parameters, too, the update goes first.
  return statement ? { guard: statement, rest: [] } : { guard: update.compile(), rest: rows.map((write) => write.compile()) };
}

/**
 * Writes an append planned from a tip (see {@link tipWrite}) with `direct`.
 * @throws SlidingContextError `STALE_WINDOW` when the agent moved on past the tip (its last seq is
 * another, or a row the append writes is stored already): nothing is then written
 */
export async function writeAppendFromTip(
  direct: (write: GuardedWrite) => Promise<boolean>,
  agentId: string,
  planned: TipAppend,
  options: AppendOptions,
  oneStatement: boolean,
): Promise<void> {
  const stale = () => new SlidingContextError('STALE_WINDOW', `Agent ${agentId} moved on past seq ${String(planned.result.firstSeq - 1)}: another writer appended first.`);
  throwIfAborted(options.signal, agentId);
  try {
    if (!(await direct(tipWrite(planned, oneStatement)))) throw stale();
  } catch (error) {
    throw isUniqueViolation(error) ? stale() : error;
  }
  const written = planned.result.lastSeq - planned.result.firstSeq + 1;
  options.onProgress?.(written, written);
  throwIfAborted(options.signal, agentId);
}

/** How the store runs an append's writes, each in one transaction (see `HistoryStore`'s writes). */
export interface AppendWrites {
  readonly db: StoreDatabase;
  /** The long way's, in a Kysely transaction. */
  inTransaction<Result>(work: (transaction: Transaction<DatabaseSchema>) => Promise<Result>): Promise<Result>;
  /** The tip's, in a direct transaction (see direct-transaction.ts); false when its guard stopped it. */
  direct(write: GuardedWrite): Promise<boolean>;
  /** PGlite: the writes go as one statement (see {@link asOneStatement}). */
  readonly oneStatement: boolean;
}

/**
 * Appends checked messages (`validated`, pin events included) to an agent: from its tip when
 * `tips` holds one that serves, else (or when it went stale) the long way; the tip after it is kept.
 */
export async function appendKeepingTip(
  tips: AppendTips,
  writes: AppendWrites,
  agentId: string,
  key: AgentKey,
  validated: readonly Message[],
  options: AppendOptions,
): Promise<AppendResult> {
  const { db, oneStatement } = writes;
  const tip = tips.take(agentId);
  const planned = tip && planAppendFromTip(db, key, validated, options, tip);
  if (planned) {
    try {
      await writeAppendFromTip((write) => writes.direct(write), agentId, planned, options, oneStatement);
      tips.keep(agentId, planned.tip);
      return planned.result;
    } catch (error) {
      // A stale tip (another writer appended since): nothing was written; the long way reads the agent.
      if (!isSlidingContextError(error, 'STALE_WINDOW')) throw error;
    }
  }
  return keepTip(tips, agentId, await writes.inTransaction((transaction) => appendInTransaction(transaction, key, validated, options, oneStatement)));
}

/** The result of an append made the long way, its tip kept. */
export function keepTip(tips: AppendTips, agentId: string, done: AppendDone): AppendResult {
  if (done.tip) tips.keep(agentId, done.tip);
  return done.result;
}
