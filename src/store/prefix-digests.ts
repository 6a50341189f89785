/**
 * The prefix index: chained digests of what an agent's model sees (its visible history, after
 * clears and rewinds), kept so that a request's messages, hashed the same way, find the
 * conversation they extend without reading any history (see `find-stored-prefix.ts`).
 *
 * digestᵢ = SHA-256(digestᵢ₋₁ ‖ fingerprintᵢ), from the empty digest, over the messages' fingerprints
 * (`messageFingerprint`: the prefix rule's notion of the same message). Two kinds of record:
 * - each agent's row holds the digest and length of its whole visible history (its tip);
 * - `prefix_digests` holds, for each stored user message, the digest and length of the visible
 *   history through it, as the agent that wrote it saw it then. That is a fact about the stored
 *   message that never changes: any agent that sees the message now sees the same messages before
 *   it (a clear or rewind that hid any of them hid the message too). Rows are never deleted; a
 *   lookup keeps those of messages the agent still sees.
 */
import { createHash } from 'node:crypto';
import type { Transaction } from 'kysely';
import { messageFingerprint } from '../message/message-fingerprint.js';
import type { Message, ModelMessage } from '../message/message.js';
import { type AgentKey, formatAgentId } from './agent-id.js';
import type { DatabaseSchema } from './database-schema.js';
import { visiblePath } from './lineage.js';
import { modelMessageRows, type StoreDatabase, toStoredMessage } from './stored-rows.js';
import type { SeqSegment } from './visible-segments.js';

/** A chain's state: the digest of the messages so far, and how many they are. */
export interface PrefixState {
  readonly digest: string;
  readonly length: number;
}

/** The chain of no messages. */
export const EMPTY_PREFIX: PrefixState = { digest: '', length: 0 };

/** A row of `prefix_digests`: the visible history through the user message at `seq`. */
export interface PrefixRow extends PrefixState {
  readonly seq: number;
}

/** The next link of a chain; the fingerprint is hashed as UTF-16 code units, so a lone surrogate stays itself. */
export function chainDigest(previous: string, fingerprint: string): string {
  return createHash('sha256').update(Buffer.from(previous, 'hex')).update(fingerprint, 'utf16le').digest('hex');
}

/** `state` extended by one message's fingerprint. */
export function extendPrefix(state: PrefixState, fingerprint: string): PrefixState {
  return { digest: chainDigest(state.digest, fingerprint), length: state.length + 1 };
}

/**
 * The fingerprint of a message as the store gives it back (through JSON: a date becomes its
 * string, an `undefined` is dropped), so that a digest made as it is written equals one made of
 * what a later read returns.
 */
export function storedFingerprint(message: ModelMessage): string {
  return messageFingerprint(JSON.parse(JSON.stringify(message)) as ModelMessage);
}

/**
 * The rows and the new tip of an append to an agent whose visible history is `tip`, from the
 * appended messages alone (`firstSeq` is the first one's seq). Undefined when they hold a rewind,
 * whose mark may lie before them: see {@link digestsAfterRewind}.
 */
export function planAppendDigests(tip: PrefixState, messages: readonly Message[], firstSeq: number): { rows: PrefixRow[]; tip: PrefixState } | undefined {
  if (messages.some((message) => message.role === 'event' && message.kind === 'rewind')) return undefined;
  let state = tip;
  const rows: PrefixRow[] = [];
  messages.forEach((message, index) => {
    if (message.role === 'event') {
      if (message.kind === 'clear') state = EMPTY_PREFIX;
      return;
    }
    state = extendPrefix(state, storedFingerprint(message));
    if (message.role === 'user') rows.push({ seq: firstSeq + index, ...state });
  });
  return { rows, tip: state };
}

/**
 * The rows and the new tip of an append that holds a rewind, worked out from the visible path
 * once its rows are written: the visible history before the appended messages is taken from the
 * latest user message's row there (and the few messages after it), then the appended messages
 * the model still sees are chained on.
 * @throws SlidingContextError `UNKNOWN_MARK` when a rewind names no reachable mark.
 */
export async function digestsAfterRewind(
  transaction: Transaction<DatabaseSchema>,
  key: AgentKey,
  firstSeq: number,
  lastSeq: number,
  messages: readonly Message[],
): Promise<{ rows: PrefixRow[]; tip: PrefixState }> {
  const { segments } = await visiblePath(transaction, key, formatAgentId(key), lastSeq);
  const before: SeqSegment[] = [];
  const appended: SeqSegment[] = [];
  for (const segment of segments) {
    if (segment.agentId !== key.id || segment.toSeq < firstSeq) before.push(segment);
    else {
      if (segment.fromSeq < firstSeq) before.push({ ...segment, toSeq: firstSeq - 1 });
      appended.push({ ...segment, fromSeq: Math.max(segment.fromSeq, firstSeq) });
    }
  }
  let state = await visiblePrefixState(transaction, key.rootId, before);
  const rows: PrefixRow[] = [];
  for (const segment of appended) {
    for (let seq = segment.fromSeq; seq <= segment.toSeq; seq++) {
      const message = messages[seq - firstSeq];
      if (message === undefined || message.role === 'event') continue;
      state = extendPrefix(state, storedFingerprint(message));
      if (message.role === 'user') rows.push({ seq, ...state });
    }
  }
  return { rows, tip: state };
}

/** The chain of the messages in `segments` (visible ones, in order): from the latest row there, then read on. */
async function visiblePrefixState(db: StoreDatabase, rootId: string, segments: readonly SeqSegment[]): Promise<PrefixState> {
  for (let index = segments.length - 1; index >= 0; index--) {
    const segment = segments[index] as SeqSegment;
    const row = await db
      .selectFrom('prefix_digests')
      .select(['seq', 'digest', 'prefix_length'])
      .where('root_id', '=', rootId)
      .where('agent_id', '=', segment.agentId)
      .where('seq', '>=', segment.fromSeq)
      .where('seq', '<=', segment.toSeq)
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (row) {
      let state: PrefixState = { digest: row.digest, length: row.prefix_length };
      await readVisibleAfter(db, rootId, segments, { segment: index, seq: row.seq }, (message) => {
        state = extendPrefix(state, messageFingerprint(message));
        return true;
      });
      return state;
    }
  }
  let state = EMPTY_PREFIX;
  await readVisibleAfter(db, rootId, segments, undefined, (message) => {
    state = extendPrefix(state, messageFingerprint(message));
    return true;
  });
  return state;
}

/**
 * Reads the model messages of `segments` after position `after` (from the start without it), in
 * order and in pages, handing each to `visit` until it returns false or `limit` were read.
 */
export async function readVisibleAfter(
  db: StoreDatabase,
  rootId: string,
  segments: readonly SeqSegment[],
  after: { readonly segment: number; readonly seq: number } | undefined,
  visit: (message: ModelMessage) => boolean,
  limit = Number.POSITIVE_INFINITY,
): Promise<void> {
  let read = 0;
  for (let index = after?.segment ?? 0; index < segments.length; index++) {
    const segment = segments[index] as SeqSegment;
    let from = after !== undefined && index === after.segment ? after.seq + 1 : segment.fromSeq;
    while (from <= segment.toSeq && read < limit) {
      const page = Math.min(256, limit - read);
      const rows = await modelMessageRows(db, rootId, segment.agentId).where('seq', '>=', from).where('seq', '<=', segment.toSeq).orderBy('seq').limit(page).execute();
      if (rows.length === 0) break;
      for (const row of rows) {
        read++;
        if (!visit(toStoredMessage(rootId, segment.agentId, row).message as ModelMessage)) return;
      }
      from = (rows.at(-1)?.seq ?? segment.toSeq) + 1;
    }
  }
}

/** Writes the rows of one agent's user messages (5 parameters a row: 5,000 rows a statement). */
export async function insertPrefixRows(db: StoreDatabase, key: AgentKey, rows: readonly PrefixRow[]): Promise<void> {
  for (let from = 0; from < rows.length; from += 5000) await db.insertInto('prefix_digests').values(prefixRowValues(key, rows.slice(from, from + 5000))).execute();
}

/** The `prefix_digests` rows of an agent's prefix rows. */
export function prefixRowValues(key: AgentKey, rows: readonly PrefixRow[]) {
  return rows.map((row) => ({ root_id: key.rootId, agent_id: key.id, seq: row.seq, prefix_length: row.length, digest: row.digest }));
}
