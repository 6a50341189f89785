import { digestSummarizer } from '../../condense/digest-summarizer.js';
import type { Summarizer } from '../../condense/summarizer.js';
import { openConversation } from '../../conversation/conversation.js';
import { SlidingContextError } from '../../errors/sliding-context-error.js';
import { type CliConfig, cliCondenseThreshold, loadCliConfig } from '../cli-config.js';
import type { CliIo } from '../cli-io.js';
import { loadCliCounter } from '../load-cli-counter.js';
import { withCliStore } from '../open-cli-store.js';
import { saveHistoryOutlineAfterWrite } from '../../conversation/history-outline.js';
import { providerSdk } from '../provider-sdk.js';
import { formatCount } from '../render/format-count.js';
import { formatNumber } from '../render/format-number.js';
import { agentTarget, print, type StoreCommandFlags, type TargetFlags } from './store-commands.js';

/** Flags of `compact`. */
export interface CompactFlags extends StoreCommandFlags, TargetFlags {
  readonly summarizer?: string | undefined;
  readonly summarizerProvider?: string | undefined;
  readonly summarizerModel?: string | undefined;
  readonly baseUrl?: string | undefined;
  readonly dryRun?: boolean | undefined;
}

const SUMMARIZER_MODELS: Readonly<Record<string, string>> = { openai: 'gpt-4o-mini', anthropic: 'claude-haiku-4-5' };

/** The summarizer the flags name; `llm` builds its client from the key in the environment. */
async function summarizerFor(flags: CompactFlags, io: CliIo, config: CliConfig): Promise<Summarizer> {
  const name = flags.summarizer ?? 'digest';
  if (name === 'digest') return digestSummarizer();
  if (name !== 'llm') throw new SlidingContextError('INVALID_INPUT', `--summarizer: "${name}" is not a summarizer; use digest or llm.`);
  const provider = flags.summarizerProvider ?? 'openai';
  const model = flags.summarizerModel ?? SUMMARIZER_MODELS[provider];
  if ((provider !== 'openai' && provider !== 'anthropic') || model === undefined) {
    throw new SlidingContextError('INVALID_INPUT', `--summarizer-provider: "${provider}" is not supported; use openai (or any OpenAI-compatible --base-url) or anthropic.`);
  }
  const sdk = await providerSdk(provider, io, flags.baseUrl);
  const { llmSummarizer } = await import('../../condense/llm-summarizer.js');
  const { customCondensingPrompt } = config.condense ?? {};
  return llmSummarizer({ client: sdk, model, customCondensingPrompt });
}

/**
 * `compact <agent>`: condenses every exchange but the pinned one and the latest into the summary
 * and shows it. `--dry-run` shows the summary and changes nothing.
 */
export async function runCompactCommand(agentId: string, flags: CompactFlags, io: CliIo): Promise<void> {
  const config = await loadCliConfig(io);
  const summarizer = await summarizerFor(flags, io, config);
  const thresholdPercent = cliCondenseThreshold(config, io);
  await withCliStore(io, flags, async (store) => {
    const { provider, model, settings } = await agentTarget(io, store, agentId, flags);
    const counter = await loadCliCounter(io, provider, model);
    const conversation = await openConversation({ store, agentId, provider, model, counter, ...settings, condense: { summarizer, thresholdPercent } });
    const result = await conversation.compact({ dryRun: flags.dryRun === true });
    // Saved for `history`, which then starts without the database.
    if (flags.dryRun !== true) await saveHistoryOutlineAfterWrite(store, agentId);
    const outcome = result.fallback
      ? `No summary (${result.fallback}: ${result.fallbackDetail ?? 'no detail'}); the window is unchanged.`
      : result.coveredExchanges === 0
        ? 'Nothing to condense: only the latest exchange (and any pinned one) is in the history.'
        : `${flags.dryRun ? 'Dry run: nothing changed. The summary would cover' : 'The summary now covers'} ${formatCount(result.coveredExchanges, 'exchange')}: ${formatNumber(result.tokensBefore)} → ${formatNumber(result.tokensAfter)} tokens.`;
    print(io, flags.json, result, [result.summary ?? '', outcome].filter(Boolean).join('\n\n'));
  });
}
