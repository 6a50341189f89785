import type { Message, ToolDefinition } from '../../message/message.js';
import type { StoredMessage, TimelineFork } from '../../store/history-store.js';

export { isExportHeader, readExportLines } from '../../import/export-lines.js';

/** What the header line of an export says about the agent. */
export interface ExportHeader {
  readonly agentId: string;
  readonly provider?: string | undefined;
  /** The wire format the agent's requests are built in (see `agentWireFormat`). */
  readonly format?: string | undefined;
  readonly model?: string | undefined;
  readonly system?: string | undefined;
  readonly tools?: readonly ToolDefinition[] | undefined;
}

/**
 * The `fork` event an export writes where a forked agent's history goes on from its parent: the
 * parent and its seq, and the child, when the fork was made.
 */
function forkEvent(fork: TimelineFork): Message {
  return { role: 'event', kind: 'fork', data: { from: { seq: fork.seq, agentId: fork.parentId }, agentId: fork.childId } };
}

/**
 * An agent's history as JSONL: a header line, then one message a line with the time it was
 * written (`createdAt`), events included. Each fork along the agent's path (`forks`, root side
 * first) is a `fork` event line where the child's history goes on from its parent, and the header
 * names the last one as `forkedFrom`. Returns the text and the lines after the header.
 */
export function historyJsonl(header: ExportHeader, rows: readonly StoredMessage[], forks: readonly TimelineFork[]): { text: string; lines: number } {
  const lines: unknown[] = [];
  const pending = [...forks];
  // A fork's event goes before the first message of its child: the forks before it first.
  const forksUpTo = (agentId: string | undefined) => {
    const end = pending.findIndex((fork) => fork.childId === agentId);
    for (const fork of pending.splice(0, agentId === undefined ? pending.length : end + 1)) lines.push({ ...forkEvent(fork), createdAt: fork.createdAt });
  };
  for (const row of rows) {
    if (pending.some((fork) => fork.childId === row.agentId)) forksUpTo(row.agentId);
    lines.push({ ...row.message, createdAt: row.createdAt });
  }
  forksUpTo(undefined);
  const last = forks.at(-1);
  const head = {
    'sliding-context': 'export',
    'version': 1,
    ...header,
    ...(last === undefined ? {} : { forkedFrom: { agentId: last.parentId, seq: last.seq } }),
  };
  return { text: `${[head, ...lines].map((line) => JSON.stringify(line)).join('\n')}\n`, lines: lines.length };
}
