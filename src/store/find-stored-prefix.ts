/**
 * The prefix rule answered from the prefix index (`prefix-digests.ts`) instead of every agent's
 * history: one lookup of the request's chained digests across all agent trees, then reads of the
 * trees it names only, each on its own shard.
 */
import { sql } from 'kysely';
import { messageFingerprint } from '../message/message-fingerprint.js';
import type { ModelMessage } from '../message/message.js';
import { formatAgentId } from './agent-id.js';
import type { PrefixMatch } from './history-store-types.js';
import { visiblePath } from './lineage.js';
import { chainDigest, EMPTY_PREFIX, type PrefixState, readVisibleAfter } from './prefix-digests.js';
import type { StoreDatabase } from './stored-rows.js';

/**
 * The lookup of the prefix index: the rows, in every agent tree, whose digest is one of
 * `digests`. The one read of the prefix rule that is not routed to one shard: on Citus it fans out,
 * and each shard answers from its index on `digest` (see CITUS.md).
 */
export function prefixDigestLookup(db: StoreDatabase, digests: readonly string[]) {
  return db
    .selectFrom('prefix_digests')
    .select(['root_id', 'agent_id', 'seq', 'prefix_length', 'digest'])
    .where('digest', '=', sql<string>`any(string_to_array(${digests.join(',')}, ','))`);
}

/** A request's messages as the lookup sees them. */
interface Request {
  readonly fingerprints: readonly string[];
  /** `digests[i]`: the chain of the first `i + 1` messages. */
  readonly digests: readonly string[];
  /** `nextUser[i]`: the index of the first user message at or after `i` (the length when none). */
  readonly nextUser: readonly number[];
}

function describeRequest(messages: readonly ModelMessage[]): Request {
  const fingerprints = messages.map(messageFingerprint);
  const digests: string[] = [];
  let state: PrefixState = EMPTY_PREFIX;
  for (const fingerprint of fingerprints) {
    state = { digest: chainDigest(state.digest, fingerprint), length: state.length + 1 };
    digests.push(state.digest);
  }
  const nextUser: number[] = Array.from({ length: messages.length + 1 }, () => messages.length);
  for (let index = messages.length - 1; index >= 0; index--) nextUser[index] = messages[index]?.role === 'user' ? index : (nextUser[index + 1] as number);
  return { fingerprints, digests, nextUser };
}

/** A row the lookup found: the user message `seq` of agent `owner`, and the length of the prefix through it. */
interface Hit {
  readonly owner: string;
  readonly seq: number;
  readonly length: number;
}

/** An agent of a tree, as the lookup reads it. */
interface TreeAgent {
  readonly id: string;
  readonly lineage: readonly string[];
  readonly forkSeq: number | null;
  readonly lastSeq: number;
  readonly tip: PrefixState;
}

/** An agent found to share a prefix with the request. */
interface Found extends Omit<PrefixMatch, 'agentId'> {
  readonly rootId: string;
  readonly id: string;
}

const extendsIt = (found: Omit<PrefixMatch, 'agentId'>) => found.shared === found.storedLength;

/** The best found so far by the rule: the longest shared prefix, one that extends before one that does not. */
function leader(found: readonly Found[]): Found | undefined {
  let best: Found | undefined;
  for (const candidate of found) {
    if (!best || candidate.shared > best.shared || (candidate.shared === best.shared && extendsIt(candidate) && !extendsIt(best))) best = candidate;
  }
  return best;
}

/**
 * The stored conversation whose visible history shares the longest prefix with `messages`, when
 * that prefix holds a user message; ties go to one that extends, then to the most recently active
 * (as `findConversationByPrefix` decides them).
 *
 * An agent that shares a prefix holding a user message sees a user message's row whose digest is
 * the request's at that length. The deepest such row it sees bounds what it can share: past it,
 * the shared part holds no user message (its row would be deeper), so it ends by the request's
 * next user message. Its tip says whether the request extends it; otherwise the few messages
 * after that row are compared.
 */
export async function findStoredPrefix(db: StoreDatabase, messages: readonly ModelMessage[]): Promise<PrefixMatch | undefined> {
  const request = describeRequest(messages);
  const userDigests = request.digests.filter((_, index) => messages[index]?.role === 'user');
  if (userDigests.length === 0) return undefined;
  const byRoot = new Map<string, Hit[]>();
  for (const row of await prefixDigestLookup(db, userDigests).execute()) {
    // A digest names its length too: a row that disagrees is another prefix (short of a collision, never).
    if (request.digests[row.prefix_length - 1] !== row.digest) continue;
    const hits = byRoot.get(row.root_id) ?? [];
    hits.push({ owner: row.agent_id, seq: row.seq, length: row.prefix_length });
    byRoot.set(row.root_id, hits);
  }
  const trees = [...byRoot]
    .map(([rootId, hits]) => ({ rootId, hits, bound: request.nextUser[hits.reduce((deepest, hit) => Math.max(deepest, hit.length), 0)] ?? 0 }))
    .sort((a, b) => b.bound - a.bound);
  const found: Found[] = [];
  for (const tree of trees) {
    const best = leader(found);
    if (best && tree.bound < best.shared) break;
    await searchTree(db, tree.rootId, tree.hits, request, found);
  }
  const best = leader(found);
  if (!best) return undefined;
  const tied = found.filter((candidate) => candidate.shared === best.shared && extendsIt(candidate) === extendsIt(best));
  const chosen = tied.length > 1 ? await mostRecentlyActive(db, tied) : best;
  return { agentId: formatAgentId({ rootId: chosen.rootId, id: chosen.id }), shared: chosen.shared, storedLength: chosen.storedLength };
}

/** Adds to `found` the agents of one tree that share a prefix with the request and may beat what is found. */
async function searchTree(db: StoreDatabase, rootId: string, hits: readonly Hit[], request: Request, found: Found[]): Promise<void> {
  const rows = await db
    .selectFrom('agents')
    .select(['id', 'lineage', 'fork_seq', 'last_seq', 'prefix_digest', 'prefix_length'])
    .where('root_id', '=', rootId)
    .execute();
  const agents = new Map<string, TreeAgent>(rows.map((row) => [row.id, {
    id: row.id, lineage: row.lineage, forkSeq: row.fork_seq, lastSeq: row.last_seq, tip: { digest: row.prefix_digest, length: row.prefix_length },
  }]));
  const firstUser = request.nextUser[0] ?? 0;
  const length = request.digests.length;
  const pending: { agent: TreeAgent; hits: Hit[]; bound: number }[] = [];
  for (const agent of agents.values()) {
    const onPath = hitsOnPath(agent, agents, hits);
    if (onPath.length === 0) continue;
    const { tip } = agent;
    if (tip.length > firstUser && tip.length <= length && request.digests[tip.length - 1] === tip.digest) {
      found.push({ rootId, id: agent.id, shared: tip.length, storedLength: tip.length });
      continue;
    }
    const deepest = onPath.reduce((most, hit) => Math.max(most, hit.length), 0);
    pending.push({ agent, hits: onPath, bound: Math.min(request.nextUser[deepest] ?? length, tip.length, length) });
  }
  pending.sort((a, b) => b.bound - a.bound);
  for (const { agent, hits: onPath, bound } of pending) {
    const best = leader(found);
    if (best && (bound < best.shared || (bound === best.shared && extendsIt(best)))) break;
    const shared = await visibleShared(db, rootId, agent, onPath, request, bound);
    if (shared !== undefined) found.push({ rootId, id: agent.id, shared, storedLength: agent.tip.length });
  }
}

/** The hits on an agent's lineage path before clears and rewinds: its own, and each ancestor's up to the fork that leads here. */
function hitsOnPath(agent: TreeAgent, agents: ReadonlyMap<string, TreeAgent>, hits: readonly Hit[]): Hit[] {
  const upTo = new Map<string, number>([[agent.id, agent.lastSeq]]);
  const path = [...agent.lineage, agent.id];
  for (let index = 0; index < path.length - 1; index++) upTo.set(path[index] as string, agents.get(path[index + 1] as string)?.forkSeq ?? 0);
  return hits.filter((hit) => hit.seq <= (upTo.get(hit.owner) ?? 0));
}

/**
 * How many leading messages of the request the agent's visible history holds, at most `bound`:
 * from its deepest hit it still sees, then compared message by message. Undefined when it sees
 * none of its hits (a clear or a rewind hid them).
 */
async function visibleShared(
  db: StoreDatabase,
  rootId: string,
  agent: TreeAgent,
  hits: readonly Hit[],
  request: Request,
  bound: number,
): Promise<number | undefined> {
  const { segments } = await visiblePath(db, { rootId, id: agent.id }, formatAgentId({ rootId, id: agent.id }));
  let deepest: { hit: Hit; segment: number } | undefined;
  for (const hit of hits) {
    const segment = segments.findIndex((run) => run.agentId === hit.owner && hit.seq >= run.fromSeq && hit.seq <= run.toSeq);
    if (segment !== -1 && (!deepest || hit.length > deepest.hit.length)) deepest = { hit, segment };
  }
  if (!deepest) return undefined;
  let shared = deepest.hit.length;
  await readVisibleAfter(db, rootId, segments, { segment: deepest.segment, seq: deepest.hit.seq }, (message) => {
    if (messageFingerprint(message) !== request.fingerprints[shared]) return false;
    shared++;
    return true;
  }, bound - shared);
  return shared;
}

/** Orders text as PostgreSQL orders the lowercase ids it gives: by code unit. */
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Of agents that tie, the one `findConversationByPrefix` takes: the latest activity (its latest
 * message, or its creation, to the millisecond), then the first created, then (created in one
 * tick of the clock) the first by root id and id, as the agents listing orders them.
 */
async function mostRecentlyActive(db: StoreDatabase, tied: readonly Found[]): Promise<Found> {
  const ranked: { found: Found; lastActivity: number; created: number }[] = [];
  for (const rootId of new Set(tied.map((found) => found.rootId))) {
    const inTree = tied.filter((found) => found.rootId === rootId);
    const rows = await db
      .selectFrom('agents')
      .leftJoin('messages', (join) => join.onRef('messages.root_id', '=', 'agents.root_id').onRef('messages.agent_id', '=', 'agents.id'))
      .select(({ fn }) => [
        'agents.id',
        'agents.created_at',
        fn.max('messages.created_at').as('last_message'),
        sql<string>`(extract(epoch from agents.created_at) * 1000000)::bigint::text`.as('created_micros'),
      ])
      .where('agents.root_id', '=', rootId)
      .where('agents.id', 'in', inTree.map((found) => found.id))
      .groupBy(['agents.id', 'agents.created_at'])
      .execute();
    for (const row of rows) {
      const found = inTree.find((candidate) => candidate.id === row.id);
      if (found) ranked.push({ found, lastActivity: new Date(row.last_message ?? row.created_at).getTime(), created: Number(row.created_micros) });
    }
  }
  const byIds = (a: Found, b: Found) => compareText(a.rootId, b.rootId) || compareText(a.id, b.id);
  ranked.sort((a, b) => b.lastActivity - a.lastActivity || a.created - b.created || byIds(a.found, b.found));
  return (ranked[0]?.found ?? tied[0]) as Found;
}
