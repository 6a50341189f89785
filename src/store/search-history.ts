/**
 * Recall: full-text search over what an agent's history holds, evicted exchanges included, and
 * reading one stored message back, both within a token cap. What the agent sees is what
 * `history` plays: its lineage up to each fork, from its latest clear, rewinds applied.
 */
import { sql } from 'kysely';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import { toolPartsOf } from '../exchange/tool-parts.js';
import { messageText } from '../message/message-text.js';
import { type AgentKey, formatAgentId, parseAgentId } from './agent-id.js';
import type {
  HistoryMessageRead,
  HistorySearch,
  HistorySearchHit,
  HistorySearchOptions,
  ReadHistoryMessageOptions,
} from './history-store-types.js';
import { visiblePath } from './lineage.js';
import { SEARCH_CONFIGURATION, searchableQuery } from './migrations.js';
import { fillSearchText } from './search-text-fill.js';
import { utf8ByteLength } from '../tokens/bytes-per-token-counter.js';
import { cutToBytes, estimatedTokens, searchExcerpt } from './search-excerpt.js';
import { messageRows, modelMessageRows, type StoreDatabase, toStoredMessage } from './stored-rows.js';
import type { SeqSegment } from './visible-segments.js';

/** The cap of a search's hits and of a message read back, in (estimated) tokens. */
export const DEFAULT_RECALL_MAX_TOKENS = 4_000;
/** The most hits a search gives. */
export const DEFAULT_SEARCH_LIMIT = 20;
/** The longest excerpt of a hit, in characters. */
const EXCERPT_CHARACTERS = 240;

/** A positive whole number of tokens or hits, or `INVALID_OPTION` naming the option. */
function positiveWhole(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) throw new SlidingContextError('INVALID_OPTION', `${name} must be a whole number of at least 1; got ${String(value)}.`);
  return value;
}

/** The query parsed as PostgreSQL parses a web search (words, "quoted phrases", `or`, `-word`), dots and slashes read as the index reads them. */
const tsQuery = (query: string) => sql`websearch_to_tsquery(${sql.lit(SEARCH_CONFIGURATION)}, ${searchableQuery(query)})`;

/**
 * Whether every message `agentId` stored with seqs `fromSeq`..`toSeq` has its search text written
 * (search-text-fill.ts): an agent's seqs have no gaps, so a count tells.
 */
async function searchTextWritten(db: StoreDatabase, rootId: string, agentId: string, fromSeq: number, toSeq: number): Promise<boolean> {
  const written = await db
    .selectFrom('message_search')
    .select(({ fn }) => fn.countAll().as('rows'))
    .where('root_id', '=', rootId)
    .where('agent_id', '=', agentId)
    .where('seq', '>=', fromSeq)
    .where('seq', '<=', toSeq)
    .executeTakeFirst();
  return Number(written?.rows ?? 0) >= toSeq - fromSeq + 1;
}

type MatchedRow = Parameters<typeof toStoredMessage>[2] & { readonly seq: number; readonly rank: number };

/**
 * The messages `segment` holds that match `query`, best first, at most `limit`, as
 * {@link messageRows} reads them, each with its rank: the matching `message_search` rows first
 * (their own table, by its key or its index), then only those messages. The search text of the
 * segment's messages that have none yet (written in the last moments, or whose fill failed) is
 * written first, as their fill would write it.
 */
async function matchingRows(db: StoreDatabase, rootId: string, segment: SeqSegment, query: string, limit: number): Promise<MatchedRow[]> {
  const { agentId, fromSeq, toSeq } = segment;
  if (!(await searchTextWritten(db, rootId, agentId, fromSeq, toSeq))) await fillSearchText(db, { rootId, id: agentId }, fromSeq, toSeq);
  const ranked = await db
    .selectFrom('message_search')
    .select(['seq', sql<number>`ts_rank(search, ${tsQuery(query)})::float8`.as('rank')])
    .where('root_id', '=', rootId)
    .where('agent_id', '=', agentId)
    .where('seq', '>=', fromSeq)
    .where('seq', '<=', toSeq)
    .where(sql<boolean>`search @@ ${tsQuery(query)}`)
    .orderBy('rank', 'desc')
    .orderBy('seq', 'desc')
    .limit(limit)
    .execute();
  if (ranked.length === 0) return [];
  const rows = new Map((await modelMessageRows(db, rootId, agentId).where('seq', 'in', ranked.map((hit) => hit.seq)).execute()).map((row) => [row.seq, row]));
  return ranked.flatMap(({ seq, rank }) => {
    const row = rows.get(seq);
    return row ? [{ ...row, rank }] : [];
  });
}

/**
 * Searches what `agentId` sees of its history (evicted exchanges included; not what lies before
 * its latest clear or behind a rewind, nor what a fork of it stored) for `query`, with the web
 * search syntax of PostgreSQL: words (stemmed), "a phrase", `or`, `-word`. Gives the best
 * matches first, each citing its exchange and message with an excerpt, within `maxTokens`.
 * @throws SlidingContextError `INVALID_OPTION` for an empty query, or one of only common words;
 * `UNKNOWN_AGENT`
 */
export async function searchHistory(db: StoreDatabase, agentId: string, query: string, options: HistorySearchOptions = {}): Promise<HistorySearch> {
  const maxTokens = positiveWhole(options.maxTokens, DEFAULT_RECALL_MAX_TOKENS, 'searchHistory: maxTokens');
  const limit = positiveWhole(options.limit, DEFAULT_SEARCH_LIMIT, 'searchHistory: limit');
  const key = parseAgentId(agentId);
  const text = query.trim();
  if (text === '') throw new SlidingContextError('INVALID_OPTION', 'The search query is empty: give at least one word to search for.');
  const { segments } = await visiblePath(db, key, agentId);
  const parsed = await sql<{ nodes: number }>`select numnode(${tsQuery(text)}) as nodes`.execute(db);
  if ((parsed.rows[0]?.nodes ?? 0) === 0) {
    throw new SlidingContextError('INVALID_OPTION', `The search query "${text}" has no word to search for: only common words (the, and, …) or punctuation; name something the messages say.`);
  }
  const found: { segment: number; agentId: string; rank: number; row: Parameters<typeof toStoredMessage>[2] }[] = [];
  for (const [index, segment] of segments.entries()) {
    const rows = await matchingRows(db, key.rootId, segment, text, limit + 1);
    for (const row of rows) found.push({ segment: index, agentId: segment.agentId, rank: row.rank, row });
  }
  found.sort((a, b) => b.rank - a.rank || b.segment - a.segment || b.row.seq - a.row.seq);
  const chosen = found.slice(0, limit);
  const exchanges = await exchangeNumbers(db, key.rootId, segments, chosen);
  const hits: HistorySearchHit[] = [];
  let tokens = 0;
  for (const [index, { agentId: storedBy, row }] of chosen.entries()) {
    const { message, createdAt } = toStoredMessage(key.rootId, storedBy, row);
    if (message.role === 'event') continue;
    const hit: HistorySearchHit = {
      agentId: formatAgentId({ rootId: key.rootId, id: storedBy }),
      seq: row.seq,
      exchange: exchanges[index] ?? null,
      role: message.role,
      toolNames: toolPartsOf(message).map(({ part }) => part.toolName),
      excerpt: searchExcerpt(messageText(message), text, EXCERPT_CHARACTERS),
      createdAt,
    };
    const cost = estimatedTokens(JSON.stringify(hit));
    if (tokens + cost > maxTokens) break;
    tokens += cost;
    hits.push(hit);
  }
  return { agentId, query: text, hits, complete: hits.length === found.length, tokens, maxTokens };
}

/**
 * Reads message `seq` of what `agentId` sees (of `storedBy`, an ancestor, when it stored it) as
 * text, whole up to `maxTokens`; a longer text is cut there and ends with a marker saying so.
 * @throws SlidingContextError `UNKNOWN_MESSAGE` when the agent does not see that message (not
 * stored, before its latest clear, behind a rewind, or another tree's); `INVALID_OPTION`; `UNKNOWN_AGENT`
 */
export async function readHistoryMessage(
  db: StoreDatabase,
  agentId: string,
  seq: number,
  options: ReadHistoryMessageOptions = {},
): Promise<HistoryMessageRead> {
  const maxTokens = positiveWhole(options.maxTokens, DEFAULT_RECALL_MAX_TOKENS, 'readHistoryMessage: maxTokens');
  const key = parseAgentId(agentId);
  const storedBy: AgentKey = options.storedBy === undefined ? key : parseAgentId(options.storedBy);
  if (!Number.isSafeInteger(seq) || seq < 1) throw new SlidingContextError('INVALID_OPTION', `readHistoryMessage: the message number must be a whole number of at least 1; got ${String(seq)}.`);
  const { segments } = await visiblePath(db, key, agentId);
  const segment = storedBy.rootId === key.rootId ? segments.findIndex((run) => run.agentId === storedBy.id && seq >= run.fromSeq && seq <= run.toSeq) : -1;
  const row = segment === -1 ? undefined : await messageRows(db, key.rootId, storedBy.id).where('seq', '=', seq).executeTakeFirst();
  if (row === undefined) {
    const of = options.storedBy === undefined ? '' : ` of agent ${options.storedBy}`;
    throw new SlidingContextError('UNKNOWN_MESSAGE', `Agent ${agentId} sees no message ${seq}${of}: it is not stored, or lies before a clear or behind a rewind; search the history for the numbers of the messages it sees.`);
  }
  const { message, createdAt } = toStoredMessage(key.rootId, storedBy.id, row);
  const [exchange] = await exchangeNumbers(db, key.rootId, segments, [{ segment, row }]);
  const whole = messageText(message);
  const tokens = estimatedTokens(whole);
  const truncated = tokens > maxTokens;
  const marker = `\n[… cut here: the message is about ${tokens} tokens, over the cap of ${maxTokens}; the rest is stored but not shown]`;
  const text = truncated ? `${cutToBytes(whole, Math.max(0, maxTokens * 4 - utf8ByteLength(marker)))}${marker}` : whole;
  return { agentId: formatAgentId(storedBy), seq, exchange: exchange ?? null, role: message.role, createdAt, text, tokens, truncated };
}

/**
 * The exchange of each message, numbered as `history` numbers them: the exchange starts the
 * agent sees up to and including it, less one (null for a message before the first exchange).
 * One count per segment before the last one a message lies in, and one per message.
 */
async function exchangeNumbers(
  db: StoreDatabase,
  rootId: string,
  segments: readonly SeqSegment[],
  messages: readonly { readonly segment: number; readonly row: { readonly seq: number } }[],
): Promise<(number | null)[]> {
  const startsIn = async (segment: SeqSegment, toSeq: number) => {
    const counted = await db
      .selectFrom('messages')
      .select(({ fn }) => fn.countAll<string | number>().as('starts'))
      .where('root_id', '=', rootId)
      .where('agent_id', '=', segment.agentId)
      .where('starts_exchange', '=', true)
      .where('seq', '>=', segment.fromSeq)
      .where('seq', '<=', toSeq)
      .executeTakeFirst();
    return Number(counted?.starts ?? 0);
  };
  const last = messages.reduce((latest, message) => Math.max(latest, message.segment), -1);
  const before: number[] = [0];
  for (let index = 0; index < last; index++) {
    const segment = segments[index] as SeqSegment;
    before.push((before[index] ?? 0) + (await startsIn(segment, segment.toSeq)));
  }
  const numbers: (number | null)[] = [];
  for (const message of messages) {
    const starts = (before[message.segment] ?? 0) + (await startsIn(segments[message.segment] as SeqSegment, message.row.seq));
    numbers.push(starts === 0 ? null : starts - 1);
  }
  return numbers;
}
