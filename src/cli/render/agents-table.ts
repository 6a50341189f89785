import type { AgentSummary } from '../../store/history-store.js';
import { formatAge } from './format-age.js';
import { clipText } from './format-exchange.js';
import { formatNumber } from './format-number.js';

/** The agents in tree order: each root, then its forks depth first, with the glyphs that draw the tree. */
export function agentTreeRows(agents: readonly AgentSummary[]): { agent: AgentSummary; prefix: string }[] {
  const children = new Map<string | null, AgentSummary[]>();
  const known = new Set(agents.map((agent) => agent.agentId));
  for (const agent of agents) {
    // A fork whose parent is not listed is drawn as a root rather than lost.
    const parent = agent.parentId !== null && known.has(agent.parentId) ? agent.parentId : null;
    children.set(parent, [...(children.get(parent) ?? []), agent]);
  }
  const rows: { agent: AgentSummary; prefix: string }[] = [];
  const walk = (parent: string | null, indent: string) => {
    const list = children.get(parent) ?? [];
    list.forEach((agent, index) => {
      const last = index === list.length - 1;
      rows.push({ agent, prefix: parent === null ? '' : `${indent}${last ? '└─ ' : '├─ '}` });
      walk(agent.agentId, parent === null ? '' : `${indent}${last ? '   ' : '│  '}`);
    });
  };
  walk(null, '');
  return rows;
}

/**
 * `agents` as a table under a header: id (forks indented under their parent), name,
 * provider/model, title, messages and tokens (inherited ones included) and last activity.
 */
export function renderAgentsTable(agents: readonly AgentSummary[], now: Date): string {
  if (agents.length === 0) return '(no agents yet)';
  const rows = agentTreeRows(agents).map(({ agent, prefix }) => [
    // A fork's id repeats its root's: the tree shows the root, so the fork shows its own part.
    `${prefix}${prefix === '' ? agent.agentId : (agent.agentId.split(':')[1] ?? agent.agentId)}`,
    // A name is one line here, however it was given.
    agent.name === null ? '' : clipText(agent.name, 40),
    agent.provider === null ? '' : `${agent.provider}/${agent.model ?? '?'}`,
    agent.title === null ? '' : `"${clipText(agent.title, 40)}"`,
    formatNumber(agent.messages + agent.inheritedMessages),
    formatNumber(agent.tokens + agent.inheritedTokens),
    formatAge(agent.lastActivity, now),
  ]);
  const header = ['AGENT', 'NAME', 'MODEL', 'TITLE', 'MESSAGES', 'TOKENS', 'LAST ACTIVE'];
  const numeric = new Set([4, 5]);
  const widths = header.map((title, column) => rows.reduce((width, row) => Math.max(width, (row[column] ?? '').length), title.length));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (numeric.has(column) ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}
