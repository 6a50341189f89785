import { applyEvents } from '../message/apply-events.js';
import { messageFingerprint } from '../message/message-fingerprint.js';
import type { Message, ModelMessage } from '../message/message.js';
import type { AgentSummary, PrefixMatch } from '../store/history-store-types.js';
import type { ConversationStore } from './conversation-store.js';

export { messageFingerprint };
export type { PrefixMatch };

/**
 * What the prefix rule reads and writes: the conversation port, the list of agents, and the
 * store's prefix index where it has one (a `HistoryStore` does); without it, every history is read.
 */
export type PrefixStore = Pick<ConversationStore, 'history' | 'fork'> & {
  listAgents(): Promise<AgentSummary[]>;
  findStoredPrefix?(messages: readonly ModelMessage[]): Promise<PrefixMatch | undefined>;
};

/** How many leading messages two lists share, compared by {@link messageFingerprint}. */
export function sharedPrefixLength(stored: readonly string[], sent: readonly string[]): number {
  let length = 0;
  while (length < stored.length && length < sent.length && stored[length] === sent[length]) length++;
  return length;
}

/**
 * The stored conversation whose visible history shares the longest prefix with `messages`, when
 * that prefix holds at least one user message (a shared system prompt alone joins nothing).
 * `shared === storedLength` means the request extends it; less means it diverges from its middle.
 * A tie goes to the agent that extends, then to the most recently active. Answered by the
 * store's prefix index when it has one: one indexed lookup, and no history read whole.
 */
export function findConversationByPrefix(store: PrefixStore, messages: readonly ModelMessage[]): Promise<PrefixMatch | undefined> {
  return store.findStoredPrefix === undefined ? findConversationByReading(store, messages) : store.findStoredPrefix(messages);
}

/**
 * {@link findConversationByPrefix} by reading every agent's visible history and comparing it with
 * `messages`: for a store without a prefix index, and the reference the index is tested against.
 */
export async function findConversationByReading(store: PrefixStore, messages: readonly ModelMessage[]): Promise<PrefixMatch | undefined> {
  const sent = messages.map(messageFingerprint);
  const agents = (await store.listAgents()).sort((a, b) => b.lastActivity.getTime() - a.lastActivity.getTime());
  let best: PrefixMatch | undefined;
  for (const agent of agents) {
    const visible = applyEvents((await store.history(agent.agentId)).map((stored) => stored.message));
    const shared = sharedPrefixLength(visible.map(messageFingerprint), sent);
    if (!messages.slice(0, shared).some((message) => message.role === 'user')) continue;
    const candidate = { agentId: agent.agentId, shared, storedLength: visible.length };
    const extendsIt = (match: PrefixMatch) => match.shared === match.storedLength;
    if (!best || shared > best.shared || (shared === best.shared && extendsIt(candidate) && !extendsIt(best))) best = candidate;
  }
  return best;
}

/** Where a request's messages go, and what to append there. */
export interface ConversationPlacement {
  readonly agentId: string;
  /** The messages (and events) to append to the agent. */
  readonly toAppend: readonly Message[];
  readonly placed: 'continued' | 'forked' | 'created';
}

/**
 * Places a request in the store by the prefix rule: a request that extends a stored conversation
 * continues it (only its new messages are appended); one that diverges from the middle of one
 * becomes a fork of it, whose window restarts (a `clear`) with the messages sent; anything else
 * starts a new conversation, made by `create`.
 */
export async function placeByPrefix(
  store: PrefixStore,
  messages: readonly ModelMessage[],
  create: () => Promise<string>,
): Promise<ConversationPlacement> {
  const match = await findConversationByPrefix(store, messages);
  return placeAfterMatch(store, match, messages, create);
}

/** {@link placeByPrefix} for a match already found (or none). */
export async function placeAfterMatch(
  store: PrefixStore,
  match: PrefixMatch | undefined,
  messages: readonly ModelMessage[],
  create: () => Promise<string>,
): Promise<ConversationPlacement> {
  if (!match) return { agentId: await create(), toAppend: messages, placed: 'created' };
  if (match.shared === match.storedLength) return { agentId: match.agentId, toAppend: messages.slice(match.shared), placed: 'continued' };
  const child = await store.fork(match.agentId);
  return { agentId: child, toAppend: [{ role: 'event', kind: 'clear' }, ...messages], placed: 'forked' };
}
