import type { UncompactFlags } from './uncompact-command-line.js';
import { openConversation, type UncompactedSummary, type UncompactResult } from '../../conversation/conversation.js';
import type { CliIo } from '../cli-io.js';
import { loadCliCounter } from '../load-cli-counter.js';
import { withCliStore } from '../open-cli-store.js';
import { formatCount } from '../render/format-count.js';
import { formatNumber } from '../render/format-number.js';
import { agentTarget, print } from './store-commands.js';

/**
 * `uncompact <agent>`: sets aside the summary in force, so that the window is what it was before
 * it; the summary stays in the history, where `history` shows it and the uncompact. Run again, it
 * steps back through the earlier summaries; with none left it fails with `NO_SUMMARY`. A running
 * chat that holds the store carries it out.
 */
export async function runUncompactCommand(agentId: string, flags: UncompactFlags, io: CliIo): Promise<void> {
  await withCliStore(io, flags, async (store) => {
    const { provider, model, settings } = await agentTarget(io, store, agentId, flags);
    const counter = await loadCliCounter(io, provider, model);
    const conversation = await openConversation({ store, agentId, provider, model, counter, ...settings });
    const result = await conversation.uncompact();
    print(io, flags.json, { agentId, ...result }, describeUncompact(agentId, result));
  }, { create: false });
}

const describe = (summary: UncompactedSummary) => `the summary (${summary.summarizer}) of ${formatCount(summary.coveredExchanges, 'exchange')} through seq ${summary.last.seq}`;

/** What an uncompact did, in two sentences. */
function describeUncompact(agentId: string, result: UncompactResult): string {
  const now = result.restored ? `${describe(result.restored)} is in force again` : 'no summary is in force now';
  return [
    `Uncompacted ${agentId}: ${describe(result.undone)} is set aside (the history keeps it); ${now}.`,
    `The request: ${formatNumber(result.tokensBefore)} → ${formatNumber(result.tokensAfter)} tokens.`,
  ].join('\n');
}
