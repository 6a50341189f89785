import { SlidingContextError } from '../errors/sliding-context-error.js';

/**
 * An agent's public id carries its tree: `<root>` for a root agent, `<root>:<agent>` for a fork,
 * so that every query can lead with `root_id` without a lookup.
 */
export interface AgentKey {
  readonly rootId: string;
  readonly id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Formats an agent key as its public id. */
export function formatAgentId(key: AgentKey): string {
  return key.rootId === key.id ? key.rootId : `${key.rootId}:${key.id}`;
}

/**
 * Parses a public agent id.
 * @throws SlidingContextError `UNKNOWN_AGENT` when it is not `<uuid>` or `<uuid>:<uuid>` (two
 * different uuids).
 */
export function parseAgentId(agentId: string): AgentKey {
  const [rootId = '', id = rootId, ...rest] = agentId.split(':');
  if (rest.length > 0 || !UUID.test(rootId) || !UUID.test(id)) {
    throw new SlidingContextError('UNKNOWN_AGENT', `"${agentId}" is not an agent id: expected <uuid> or <uuid>:<uuid>.`);
  }
  const key = { rootId: rootId.toLowerCase(), id: id.toLowerCase() };
  if (agentId.includes(':') && key.rootId === key.id) {
    // A fork never has its root's id: this names the root agent, whose id is the uuid alone.
    throw new SlidingContextError('UNKNOWN_AGENT', `"${agentId}" is not an agent id: a fork's id differs from its root's; the root agent is "${rootId}".`);
  }
  return key;
}
