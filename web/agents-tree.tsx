import type { AgentJson } from './web-data.js';

const number = new Intl.NumberFormat('en-US');

/** How long ago `time` was, in the largest unit that fits. */
function ago(time: string): string {
  const seconds = Math.max(0, (Date.now() - new Date(time).getTime()) / 1000);
  if (seconds < 60) return `${Math.round(seconds)}s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)}h ago`;
  return `${Math.round(seconds / 86_400)}d ago`;
}

/** What the tree says of an agent under its name: model, messages and tokens (inherited ones included), last activity. */
function agentLine(agent: AgentJson): string {
  const messages = number.format(agent.messages + agent.inheritedMessages);
  return `${agent.model ?? 'no model'} · ${messages} msgs · ${number.format(agent.tokens + agent.inheritedTokens)} tok · ${ago(agent.lastActivity)}`;
}

/** The agents as their fork tree: each fork under its parent, with its name, model, size and last activity. */
export function AgentsTree(props: {
  readonly agents: readonly AgentJson[];
  readonly selected: string | undefined;
  readonly onSelect: (agentId: string) => void;
}) {
  const children = new Map<string | null, AgentJson[]>();
  const known = new Set(props.agents.map((agent) => agent.agentId));
  for (const agent of props.agents) {
    const parent = agent.parentId !== null && known.has(agent.parentId) ? agent.parentId : null;
    children.set(parent, [...(children.get(parent) ?? []), agent]);
  }
  const branch = (parent: string | null, depth: number): preact.JSX.Element[] =>
    (children.get(parent) ?? []).flatMap((agent) => [
      <li key={agent.agentId}>
        <button
          type="button"
          class={`agent${agent.agentId === props.selected ? ' selected' : ''}`}
          style={{ paddingLeft: `${0.5 + depth * 1.1}rem` }}
          data-testid="agent"
          data-agent-id={agent.agentId}
          data-parent-id={agent.parentId ?? ''}
          onClick={() => {
            props.onSelect(agent.agentId);
          }}
        >
          <span class="agent-name">
            {depth > 0 ? '↳ ' : ''}
            {agent.name ?? agent.title ?? agent.agentId.slice(0, 8)}
          </span>
          <span class="agent-meta">{agentLine(agent)}</span>
        </button>
      </li>,
      ...branch(agent.agentId, depth + 1),
    ]);
  return <ul class="agents" data-testid="agents">{branch(null, 0)}</ul>;
}
