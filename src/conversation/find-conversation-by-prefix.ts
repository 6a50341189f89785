import { applyEvents } from '../message/apply-events.js';
import type { Message, ModelMessage } from '../message/message.js';
import type { AgentSummary } from '../store/history-store-types.js';
import type { ConversationStore } from './conversation-store.js';

/** What the prefix rule reads and writes: the conversation port, and the list of agents. */
export type PrefixStore = Pick<ConversationStore, 'history' | 'fork'> & { listAgents(): Promise<AgentSummary[]> };

/**
 * What identifies a message when a client sends its history again: its role and content, without
 * provider options or ids (a client may drop or add those on the way back), keys in sorted order;
 * a text content is the same as one text part (Claude Code sends its latest user message as a block
 * with `cache_control`, and as a string once it is no longer the latest).
 */
export function messageFingerprint(message: ModelMessage): string {
  const content = message.role !== 'system' && typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
  return JSON.stringify(withoutOptions({ ...message, content }));
}

function withoutOptions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutOptions);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([key, inner]) => key !== 'providerOptions' && key !== 'id' && inner !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([key, inner]) => [key, withoutOptions(inner)]));
}

/** How many leading messages two lists share, compared by {@link messageFingerprint}. */
export function sharedPrefixLength(stored: readonly string[], sent: readonly string[]): number {
  let length = 0;
  while (length < stored.length && length < sent.length && stored[length] === sent[length]) length++;
  return length;
}

/** The stored conversation a request's messages belong to. */
export interface PrefixMatch {
  readonly agentId: string;
  /** Leading messages of the request the agent's visible history holds. */
  readonly shared: number;
  /** Messages of the agent's visible history. */
  readonly storedLength: number;
}

/**
 * The stored conversation whose visible history shares the longest prefix with `messages`, when
 * that prefix holds at least one user message (a shared system prompt alone joins nothing).
 * `shared === storedLength` means the request extends it; less means it diverges from its middle.
 * A tie goes to the agent that extends, then to the most recently active.
 */
export async function findConversationByPrefix(store: PrefixStore, messages: readonly ModelMessage[]): Promise<PrefixMatch | undefined> {
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
