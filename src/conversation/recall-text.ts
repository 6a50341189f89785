/** The recall tools' answers as the model (and `sliding-context search`) reads them. */
import type { HistoryMessageRead, HistorySearch, HistorySearchHit } from './conversation-store.js';

/** Where a message is stored, as `read_history` takes it: `message 12`, or `message 3 of agent …` for an ancestor's. */
export function messageCitation(position: { readonly agentId: string; readonly seq: number }, agentId: string): string {
  return position.agentId === agentId ? `message ${position.seq}` : `message ${position.seq} of agent ${position.agentId}`;
}

/** One hit's heading: its exchange, its message, and who wrote it (`exchange #4 · message 31 · tool read_file`). */
export function hitHeading(hit: HistorySearchHit, agentId: string): string {
  const exchange = hit.exchange === null ? 'before the first exchange' : `exchange #${hit.exchange}`;
  const tools = hit.toolNames.length === 0 ? '' : ` ${[...new Set(hit.toolNames)].join(', ')}`;
  return `${exchange} · ${messageCitation(hit, agentId)} · ${hit.role}${tools}`;
}

/** A search's answer: how many matched, then each hit, its heading and its excerpt, best first. */
export function historySearchText(search: HistorySearch): string {
  if (search.hits.length === 0) {
    return search.complete
      ? `No stored message of this conversation matches "${search.query}".`
      : `Messages match "${search.query}", but even the best one is over the ${search.maxTokens}-token cap of an answer; read one with read_history, or narrow the query.`;
  }
  const lines = [`${search.hits.length} ${search.hits.length === 1 ? 'message matches' : 'messages match'} "${search.query}", best first${search.complete ? '' : ' (more match: narrow the query to see them)'}:`];
  for (const hit of search.hits) lines.push(`- ${hitHeading(hit, search.agentId)}: ${hit.excerpt}`);
  lines.push('read_history reads a message whole, by its number.');
  return lines.join('\n');
}

/** A message read back: its place, then its text (cut at the cap, the text says so). */
export function historyMessageText(read: HistoryMessageRead, agentId: string): string {
  const exchange = read.exchange === null ? 'before the first exchange' : `exchange #${read.exchange}`;
  return `${messageCitation(read, agentId)} · ${exchange} · ${read.role}\n${read.text}`;
}
