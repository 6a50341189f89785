/** A stored message's place: the agent it was stored by and its seq there. */
interface Position {
  readonly agentId: string;
  readonly seq: number;
}

/** An agent id as a range names it: the first 8 characters of its own part (a fork's, after the colon). */
function shortAgentId(agentId: string): string {
  return (agentId.split(':').at(-1) ?? agentId).slice(0, 8);
}

/**
 * `1–12` for messages of one agent; `4f1c2a9e:1–b70d33c1:12` when the range spans a fork, so
 * that each seq is read against the agent that stored it.
 */
export function formatMessageRange(first: Position, last: Position): string {
  if (first.agentId === last.agentId) return `${first.seq}–${last.seq}`;
  return `${shortAgentId(first.agentId)}:${first.seq}–${shortAgentId(last.agentId)}:${last.seq}`;
}
