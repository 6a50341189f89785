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

/**
 * `meta` with `changes` merged in, one level deep: a key changed to null is removed (a JSON merge
 * patch, RFC 7396, on the top level only).
 */
function mergedMeta(meta: Readonly<Record<string, unknown>>, changes: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries({ ...meta, ...changes }).filter(([key, value]) => value !== null || !Object.hasOwn(changes, key)));
}

/** Merges `changes` into an agent's meta (see {@link mergedMeta}). */
export async function updateAgentMeta(db: StoreDatabase, key: AgentKey, changes: Readonly<Record<string, unknown>>): Promise<void> {
  const agent = await requireAgent(db, key);
  const stored = encodeStoredJson(mergedMeta(agent.meta, changes));
  await db.updateTable('agents').set({ meta: stored.text, meta_escaped: stored.escaped }).where('root_id', '=', key.rootId).where('id', '=', key.id).execute();
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
      // Agents created in one tick of the clock (PGlite's is a millisecond) in one order, always.
      .orderBy('agents.created_at')
      .orderBy('agents.root_id')
      .orderBy('agents.id'),
    /** Each agent's first exchange start, for its title. */
    firsts: db
      .selectFrom('messages')
      .select(['root_id', 'agent_id', 'seq', 'title'])
      .distinctOn(['root_id', 'agent_id'])
      .where('starts_exchange', '=', true)
      .orderBy('root_id')
      .orderBy('agent_id')
      .orderBy('seq'),
    /** The agents table's rows: the tree, names, meta, and how many rows each stored. */
    tree: treeRead(db),
    /** The same, oldest first: a kept listing's order. */
    treeByAge: treeRead(db).orderBy('created_at').orderBy('root_id').orderBy('id'),
    /** For each fork, the tokens of its parent's own messages up to the fork point. */
    forkTokens: db
      .selectFrom('agents as child')
      .innerJoin('messages', (join) =>
        join.onRef('messages.root_id', '=', 'child.root_id').onRef('messages.agent_id', '=', 'child.parent_id').onRef('messages.seq', '<=', 'child.fork_seq'))
      .select(({ fn }) => ['child.root_id', 'child.id', fn.coalesce(fn.sum<string>('messages.tokens'), sql<string>`0`).as('tokens')])
      .groupBy(['child.root_id', 'child.id']),
  };
}

/** The agents table's rows the listing reads: the tree, names, meta, and how many rows each stored. */
function treeRead(db: StoreDatabase) {
  return db.selectFrom('agents').select(['root_id', 'id', 'parent_id', 'created_at', 'name', 'fork_seq', 'meta', 'last_seq']);
}

type TreeRow = Awaited<ReturnType<ReturnType<typeof treeRead>['execute']>>[number];
type Totals = ReturnType<typeof agentTotals>[number];
type FirstRow = { readonly root_id: string; readonly agent_id: string; readonly seq: number; readonly title: string | null };

const keyOf = (rootId: string, id: string) => `${rootId}/${id}`;

/**
 * Every agent, with its message count, stored tokens and last activity, its name, what it
 * inherits from its ancestors and the title of its first exchange.
 */
export function listAgents(db: StoreDatabase): Promise<AgentSummary[]> {
  // A listing's first call reads every agent whole.
  return new KeptAgentListing(db).list();
}

/** What a listing kept of an agent: its own totals over its first `messages` seqs, and its first exchange's start once stored. */
interface KeptTotals {
  readonly totals: Totals;
  readonly first: FirstRow | undefined;
}

/**
 * {@link listAgents} kept from one call to the next: rows are only ever appended (an agent's
 * seqs are gapless from 1), so an agent's totals, its first exchange and the tokens a fork
 * inherits are read once, and after that only the rows an agent stored since it was last
 * listed are read (through its primary key), not every message of every agent. The first call
 * reads as `listAgents` does. Gives exactly what `listAgents` gives.
 */
export class KeptAgentListing {
  readonly #db: StoreDatabase;
  readonly #agents = new Map<string, KeptTotals>();
  readonly #forkTokens = new Map<string, number>();
  /** One listing at a time: each starts from what the one before kept. */
  #running: Promise<unknown> = Promise.resolve();

  constructor(db: StoreDatabase) {
    this.#db = db;
  }

  list(): Promise<AgentSummary[]> {
    const listing = this.#running.then(() => this.#list(), () => this.#list());
    this.#running = listing;
    return listing;
  }

  async #list(): Promise<AgentSummary[]> {
    if (this.#agents.size === 0) return this.#listWhole();
    // Ordered as the totals read orders them.
    const tree = await agentListingReads(this.#db).treeByAge.execute();
    const stale = tree.filter((row) => {
      const kept = this.#agents.get(keyOf(row.root_id, row.id));
      return kept === undefined || kept.totals.messages < row.last_seq;
    });
    await Promise.all(stale.map((row) => this.#readSince(row)));
    const forks = tree.filter((row) => row.fork_seq !== null && !this.#forkTokens.has(keyOf(row.root_id, row.id)));
    await Promise.all(forks.map((row) => this.#readForkTokens(row)));
    const agents: Totals[] = [];
    const firsts = new Map<string, FirstRow>();
    for (const row of tree) {
      const kept = this.#agents.get(keyOf(row.root_id, row.id));
      if (!kept) continue;
      agents.push(kept.totals);
      if (kept.first) firsts.set(keyOf(row.root_id, row.id), kept.first);
    }
    return listedAgents(agents, firsts, tree, this.#forkTokens);
  }

  async #listWhole(): Promise<AgentSummary[]> {
    const reads = agentListingReads(this.#db);
    const agents = agentTotals(await reads.totals.execute());
    const [firsts, tree, forkTokens] = await Promise.all([reads.firsts.execute(), reads.tree.execute(), reads.forkTokens.execute()]);
    const firstOf = new Map(firsts.map((row) => [keyOf(row.root_id, row.agent_id), row]));
    for (const totals of agents) {
      const { rootId, id } = parseAgentId(totals.agentId);
      this.#agents.set(keyOf(rootId, id), { totals, first: firstOf.get(keyOf(rootId, id)) });
    }
    for (const fork of forkTokens) this.#forkTokens.set(keyOf(fork.root_id, fork.id), Number(fork.tokens));
    // A fork with no parent rows up to its seq is not in that read: it inherits no tokens.
    for (const row of tree) if (row.fork_seq !== null && !this.#forkTokens.has(keyOf(row.root_id, row.id))) this.#forkTokens.set(keyOf(row.root_id, row.id), 0);
    return listedAgents(agents, firstOf, tree, this.#forkTokens);
  }

  /** Adds the rows an agent stored since it was last listed (all of them for an agent new here). */
  async #readSince(row: TreeRow): Promise<void> {
    const key = keyOf(row.root_id, row.id);
    const kept = this.#agents.get(key);
    const after = kept?.totals.messages ?? 0;
    const own = this.#db.selectFrom('messages').where('root_id', '=', row.root_id).where('agent_id', '=', row.id).where('seq', '>', after);
    const [added, first] = await Promise.all([
      own
        .select(({ fn }) => [
          fn.count<string>('seq').as('messages'),
          fn.coalesce(fn.sum<string>('tokens'), sql<string>`0`).as('tokens'),
          fn.max('created_at').as('last_message'),
        ])
        .executeTakeFirst(),
      kept?.first ? undefined : own.select(['root_id', 'agent_id', 'seq', 'title']).where('starts_exchange', '=', true).orderBy('seq').limit(1).executeTakeFirst(),
    ]);
    const before = kept?.totals;
    const lastAdded = added?.last_message ? new Date(added.last_message) : null;
    // The latest of its rows' times (the agent's own before it stored any).
    const latest = before === undefined || before.messages === 0 ? lastAdded : lastAdded && lastAdded > before.lastActivity ? lastAdded : before.lastActivity;
    const lastActivity = latest ?? before?.lastActivity ?? new Date(row.created_at);
    const totals: Totals = {
      agentId: formatAgentId({ rootId: row.root_id, id: row.id }),
      parentId: before?.parentId ?? (row.parent_id === null ? null : formatAgentId({ rootId: row.root_id, id: row.parent_id })),
      messages: after + Number(added?.messages ?? 0),
      tokens: (before?.tokens ?? 0) + Number(added?.tokens ?? 0),
      lastActivity,
    };
    this.#agents.set(key, { totals, first: kept?.first ?? first });
  }

  /** The tokens of a fork's parent's own rows up to the fork: read once, as they never change. */
  async #readForkTokens(row: TreeRow): Promise<void> {
    const tokens = await this.#db
      .selectFrom('messages')
      .where('root_id', '=', row.root_id)
      .where('agent_id', '=', row.parent_id as string)
      .where('seq', '<=', row.fork_seq as number)
      .select(({ fn }) => fn.coalesce(fn.sum<string>('tokens'), sql<string>`0`).as('tokens'))
      .executeTakeFirst();
    this.#forkTokens.set(keyOf(row.root_id, row.id), Number(tokens?.tokens ?? 0));
  }
}

/**
 * The listing, from each agent's own totals (in the totals read's order), first exchange starts,
 * agents rows and the tokens each fork inherits from its parent.
 */
function listedAgents(
  agents: readonly Totals[],
  first: ReadonlyMap<string, FirstRow>,
  tree: readonly TreeRow[],
  tokensAtFork: ReadonlyMap<string, number>,
): AgentSummary[] {
  const row = new Map(tree.map((agent) => [keyOf(agent.root_id, agent.id), agent]));
  const byId = new Map(agents.map((agent) => [agent.agentId, agent]));
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
