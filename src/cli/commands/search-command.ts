import { hitHeading } from '../../conversation/recall-text.js';
import { SlidingContextError } from '../../errors/sliding-context-error.js';
import type { HistorySearch } from '../../store/history-store-types.js';
import type { CliIo } from '../cli-io.js';
import type { StoreCommandFlags } from '../command-flags.js';
import { withCliStore } from '../open-cli-store.js';
import { formatAge } from '../render/format-age.js';
import { formatNumber } from '../render/format-number.js';
import { neutralizeControlCharacters } from '../render/neutralize-control-characters.js';

/**
 * `search <agent> <query>`: the messages the agent sees (evicted ones included) that match, best
 * first, each with its exchange, message number and an excerpt; `--json` gives the search as the
 * store answers it. Reads a PGlite directory another process holds through that process.
 */
export async function runSearchCommand(agentId: string, query: string, flags: StoreCommandFlags, io: CliIo): Promise<void> {
  if (query.trim() === '') throw new SlidingContextError('INVALID_OPTION', 'search: the query is empty; give the words to find, e.g. sliding-context search <agent-id> dueDate.');
  const search = await withCliStore(io, flags, (store) => store.searchHistory(agentId, query), { create: false });
  io.stdout.write(flags.json ? `${JSON.stringify(search, null, 2)}\n` : renderSearch(search, new Date()));
}

/** The search as `search` prints it. */
export function renderSearch(search: HistorySearch, now: Date): string {
  const shown = neutralizeControlCharacters;
  const heading = `sliding-context search ${search.agentId} "${shown(search.query)}"`;
  if (search.hits.length === 0) return `${heading}\n\nNo message this agent sees matches.\n`;
  const count = `${search.hits.length} ${search.hits.length === 1 ? 'message matches' : 'messages match'}, best first`;
  const lines = [`${heading} · ${count}${search.complete ? '' : ' (more match: narrow the query)'}`, ''];
  for (const hit of search.hits) {
    lines.push(`  ${shown(hitHeading(hit, search.agentId))} · ${formatAge(hit.createdAt, now)}`, `    ${shown(hit.excerpt)}`, '');
  }
  lines.push(`${formatNumber(search.tokens)} tokens of ${formatNumber(search.maxTokens)} (estimated) · exchanges numbered as \`history\` numbers them`);
  return `${lines.join('\n')}\n`;
}
