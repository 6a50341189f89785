/** Agents: the row of a new root agent, naming one, and the list `agents` shows. */
import { sql } from 'kysely';
import { type AgentKey, formatAgentId, parseAgentId } from './agent-id.js';
import type { AgentSummary } from './history-store-types.js';
import { requireAgent, type StoreDatabase } from './stored-rows.js';
import { encodeStoredJson } from './stored-json.js';

/** The row of a new root agent. */
export function agentRow(id: string, meta: Record<string, unknown>, name: string | undefined) {
  const stored = encodeStoredJson(meta);
  return { root_id: id, id, parent_id: null, fork_seq: null, lineage: '[]', last_seq: 0, meta: stored.text, meta_escaped: stored.escaped, name: name ?? null };
}

/** Names (or, with null, unnames) an agent. */
export async function nameAgent(db: StoreDatabase, key: AgentKey, name: string | null): Promise<void> {
  await requireAgent(db, key);
  await db.updateTable('agents').set({ name }).where('root_id', '=', key.rootId).where('id', '=', key.id).execute();
}

/**
 * The reads `agents` makes: each covers every agent tree, so on Citus each fans out to every
 * shard (joined on `root_id` only, so each shard answers for its own trees). The only reads of
 * the store that are not routed to one shard; see CITUS.md.
 */
export function agentListingReads(db: StoreDatabase) {
  return {
    /** Every agent's own message count, stored tokens and last activity. */
    totals: db
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
      .orderBy('agents.created_at'),
    /** Each agent's first exchange start, for its title. */
    firsts: db
      .selectFrom('messages')
      .select(['root_id', 'agent_id', 'seq', 'title'])
      .distinctOn(['root_id', 'agent_id'])
      .where('starts_exchange', '=', true)
      .orderBy('root_id')
      .orderBy('agent_id')
      .orderBy('seq'),
    tree: db.selectFrom('agents').select(['root_id', 'id', 'name', 'fork_seq', 'meta']),
    /** For each fork, the tokens of its parent's own messages up to the fork point. */
    forkTokens: db
      .selectFrom('agents as child')
      .innerJoin('messages', (join) =>
        join.onRef('messages.root_id', '=', 'child.root_id').onRef('messages.agent_id', '=', 'child.parent_id').onRef('messages.seq', '<=', 'child.fork_seq'))
      .select(({ fn }) => ['child.root_id', 'child.id', fn.coalesce(fn.sum<string>('messages.tokens'), sql<string>`0`).as('tokens')])
      .groupBy(['child.root_id', 'child.id']),
  };
}

/**
 * Every agent, with its message count, stored tokens and last activity, its name, what it
 * inherits from its ancestors and the title of its first exchange.
 */
export async function listAgents(db: StoreDatabase): Promise<AgentSummary[]> {
  const reads = agentListingReads(db);
  const agents = agentTotals(await reads.totals.execute());
  const [firsts, tree, forkTokens] = await Promise.all([reads.firsts.execute(), reads.tree.execute(), reads.forkTokens.execute()]);
  const keyOf = (rootId: string, id: string) => `${rootId}/${id}`;
  const first = new Map(firsts.map((row) => [keyOf(row.root_id, row.agent_id), row]));
  const row = new Map(tree.map((agent) => [keyOf(agent.root_id, agent.id), agent]));
  const byId = new Map(agents.map((agent) => [agent.agentId, agent]));
  const tokensAtFork = new Map(forkTokens.map((fork) => [keyOf(fork.root_id, fork.id), Number(fork.tokens)]));
  /** Tokens an agent sees from its ancestors: its parent's up to the fork, and all the parent inherited. */
  const inheritedTokens = (agentId: string): number => {
    const agent = byId.get(agentId);
    if (!agent?.parentId) return 0;
    const { rootId, id } = parseAgentId(agentId);
    return (tokensAtFork.get(keyOf(rootId, id)) ?? 0) + inheritedTokens(agent.parentId);
  };
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
      inheritedTokens: inheritedTokens(agent.agentId),
      title: all.title,
      provider: typeof meta.provider === 'string' ? meta.provider : null,
      model: typeof meta.model === 'string' ? meta.model : null,
    };
  });
}

/** Every agent's own message count, stored tokens and last activity, from the `totals` read. */
function agentTotals(
  rows: readonly { root_id: string; id: string; parent_id: string | null; created_at: Date; messages: string; tokens: string; last_message: Date | null }[],
): Pick<AgentSummary, 'agentId' | 'parentId' | 'messages' | 'tokens' | 'lastActivity'>[] {
  return rows.map((row) => ({
    agentId: formatAgentId({ rootId: row.root_id, id: row.id }),
    parentId: row.parent_id === null ? null : formatAgentId({ rootId: row.root_id, id: row.parent_id }),
    messages: Number(row.messages),
    tokens: Number(row.tokens),
    lastActivity: new Date(row.last_message ?? row.created_at),
  }));
}
