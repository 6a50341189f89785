/**
 * Fills the prefix index (`prefix-digests.ts`) for histories stored before it: run once, by the
 * migration that creates it. Each tree is replayed from its root, parents before their forks,
 * every message read once: a fork starts from its parent's state at the fork.
 */
import { findRewindTarget } from '../message/apply-events.js';
import { messageFingerprint } from '../message/message-fingerprint.js';
import type { Message } from '../message/message.js';
import { EMPTY_PREFIX, extendPrefix, insertPrefixRows, type PrefixRow, type PrefixState } from './prefix-digests.js';
import { messageRows, type StoreDatabase, toStoredMessage } from './stored-rows.js';

/** Rows read a page. */
const PAGE = 1000;

/** What the model sees along a replay, as chains: the whole, and each reachable mark. */
interface ReplayState extends PrefixState {
  readonly marks: readonly (PrefixState & { readonly label: string | undefined })[];
}

/**
 * The backfill's one read that is not routed to one shard: every agent, to replay each tree. It
 * runs once per store, as the migration does; see CITUS.md.
 */
export function prefixBackfillAgents(db: StoreDatabase) {
  return db.selectFrom('agents').select(['root_id', 'id', 'parent_id', 'fork_seq', 'last_seq']);
}

type AgentRow = Awaited<ReturnType<ReturnType<typeof prefixBackfillAgents>['execute']>>[number];

/** Writes the rows of every stored user message and each agent's tip. */
export async function backfillPrefixDigests(db: StoreDatabase): Promise<void> {
  const trees = new Map<string, AgentRow[]>();
  for (const agent of await prefixBackfillAgents(db).execute()) {
    const tree = trees.get(agent.root_id) ?? [];
    tree.push(agent);
    trees.set(agent.root_id, tree);
  }
  for (const [rootId, agents] of trees) await backfillTree(db, rootId, agents);
}

async function backfillTree(db: StoreDatabase, rootId: string, agents: readonly AgentRow[]): Promise<void> {
  const children = new Map<string | null, AgentRow[]>();
  for (const agent of agents) {
    const siblings = children.get(agent.parent_id) ?? [];
    siblings.push(agent);
    children.set(agent.parent_id, siblings);
  }
  const atFork = new Map<string, ReplayState>();
  // Roots first, then each agent's forks once it is replayed.
  const queue = [...(children.get(null) ?? [])];
  for (let agent = queue.shift(); agent !== undefined; agent = queue.shift()) {
    const forks = children.get(agent.id) ?? [];
    for (const fork of forks) queue.push(fork);
    let state: ReplayState = atFork.get(agent.id) ?? { ...EMPTY_PREFIX, marks: [] };
    const keep = (seq: number) => {
      for (const fork of forks) if ((fork.fork_seq ?? 0) === seq) atFork.set(fork.id, state);
    };
    keep(0);
    const key = { rootId, id: agent.id };
    for (let from = 1; from <= agent.last_seq; from += PAGE) {
      const rows: PrefixRow[] = [];
      for (const row of await messageRows(db, rootId, agent.id).where('seq', '>=', from).where('seq', '<', from + PAGE).orderBy('seq').execute()) {
        const { message } = toStoredMessage(rootId, agent.id, row);
        state = replay(state, message);
        if (message.role === 'user') rows.push({ seq: row.seq, digest: state.digest, length: state.length });
        keep(row.seq);
      }
      await insertPrefixRows(db, key, rows);
    }
    await db.updateTable('agents').set({ prefix_digest: state.digest, prefix_length: state.length }).where('root_id', '=', rootId).where('id', '=', agent.id).execute();
  }
}

/** The state after one more stored message, as `applyEvents` plays it. */
function replay(state: ReplayState, message: Message): ReplayState {
  if (message.role !== 'event') return { ...extendPrefix(state, messageFingerprint(message)), marks: state.marks };
  switch (message.kind) {
    case 'clear':
      return { ...EMPTY_PREFIX, marks: [] };
    case 'mark':
      return { ...state, marks: [...state.marks, { digest: state.digest, length: state.length, label: message.label }] };
    case 'rewind': {
      const marks = state.marks.map((mark) => ({ label: mark.label, position: mark.length }));
      let target: number;
      try {
        target = findRewindTarget(marks, message.label, 'backfill');
      } catch {
        // A rewind to no reachable mark: the history cannot be played anyway; it is passed over.
        return state;
      }
      const mark = state.marks[target] as ReplayState['marks'][number];
      return { digest: mark.digest, length: mark.length, marks: state.marks.slice(0, target + 1) };
    }
    default:
      return state;
  }
}
