import { digestSummarizer } from '../../condense/digest-summarizer.js';
import { openConversation } from '../../conversation/conversation.js';
import { SlidingContextError } from '../../errors/sliding-context-error.js';
import type { CliIo } from '../cli-io.js';
import { loadCliCounter } from '../load-cli-counter.js';
import { withCliStore } from '../open-cli-store.js';
import { formatNumber } from '../render/format-number.js';
import { agentTarget, print, type StoreCommandFlags } from './store-commands.js';

/** Flags of `compact`. */
export interface CompactFlags extends StoreCommandFlags {
  readonly summarizer?: string | undefined;
  readonly dryRun?: boolean | undefined;
}

/**
 * `compact <agent>`: condenses every exchange but the pinned one and the latest into the summary
 * and shows it. `--dry-run` shows the summary and changes nothing.
 */
export async function runCompactCommand(agentId: string, flags: CompactFlags, io: CliIo): Promise<void> {
  const name = flags.summarizer ?? 'digest';
  if (name !== 'digest') {
    throw new SlidingContextError('INVALID_INPUT', `--summarizer ${name} is not available: only "digest" is built so far.`);
  }
  await withCliStore(io, flags, async (store) => {
    const { provider, model, settings } = await agentTarget(io, store, agentId, {});
    const counter = await loadCliCounter(io, provider, model);
    const conversation = await openConversation({ store, agentId, provider, model, counter, ...settings, condense: { summarizer: digestSummarizer() } });
    const result = await conversation.compact({ dryRun: flags.dryRun === true });
    const outcome = result.fallback
      ? `No summary: ${result.fallback}; the window is unchanged.`
      : result.coveredExchanges === 0
        ? 'Nothing to condense: only the latest exchange (and any pinned one) is in the history.'
        : `${flags.dryRun ? 'Dry run: nothing changed. The summary would cover' : 'The summary now covers'} ${result.coveredExchanges} exchanges: ${formatNumber(result.tokensBefore)} → ${formatNumber(result.tokensAfter)} tokens.`;
    print(io, flags.json, result, [result.summary ?? '', outcome].filter(Boolean).join('\n\n'));
  });
}
