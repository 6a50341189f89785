import type { CompactFlags } from './compact-command-line.js';
import { digestSummarizer } from '../../condense/digest-summarizer.js';
import type { Summarizer } from '../../condense/summarizer.js';
import { type Conversation, openConversation } from '../../conversation/conversation.js';
import { redactSecrets } from '../../errors/redact-secrets.js';
import { SlidingContextError } from '../../errors/sliding-context-error.js';
import { type CliConfig, cliCondenseThreshold, loadCliConfig } from '../cli-config.js';
import { summaryShareSetting } from '../cli-settings.js';
import type { CliIo } from '../cli-io.js';
import { loadCliCounter } from '../load-cli-counter.js';
import { withCliStore } from '../open-cli-store.js';
import { providerSdk } from '../provider-sdk.js';
import { parseBaseUrl } from '../../providers/parse-base-url.js';
import { formatCount } from '../render/format-count.js';
import { formatNumber } from '../render/format-number.js';
import { renderLossReport } from '../render/loss-report-text.js';
import { neutralizeControlCharacters } from '../render/neutralize-control-characters.js';
import { agentTarget, print } from './store-commands.js';

const SUMMARIZER_MODELS: Readonly<Record<string, string>> = { openai: 'gpt-4o-mini', anthropic: 'claude-haiku-4-5' };

/** The summarizer the flags name; `llm` builds its client from the key in the environment. */
async function summarizerFor(flags: CompactFlags, io: CliIo, config: CliConfig): Promise<Summarizer> {
  const name = flags.summarizer ?? 'digest';
  if (name === 'digest') return digestSummarizer();
  if (name !== 'llm') throw new SlidingContextError('INVALID_OPTION', `--summarizer: "${name}" is not a summarizer; use digest or llm.`);
  const provider = flags.summarizerProvider ?? 'openai';
  const model = summarizerModelFlag(flags.summarizerModel) ?? SUMMARIZER_MODELS[provider];
  if ((provider !== 'openai' && provider !== 'anthropic') || model === undefined) {
    throw new SlidingContextError('INVALID_OPTION', `--summarizer-provider: "${provider}" is not supported; use openai (or any OpenAI-compatible --base-url) or anthropic.`);
  }
  const sdk = await providerSdk(provider, io, parseBaseUrl('--base-url', flags.baseUrl));
  const [{ llmSummarizer }, { completeFor }] = await Promise.all([import('../../condense/llm-summarizer.js'), import('../../providers/provider-table.js')]);
  const { customCondensingPrompt } = config.condense ?? {};
  return llmSummarizer({ complete: completeFor(sdk.provider, sdk.client, model), provider, model, customCondensingPrompt });
}

/**
 * `--summarizer-model`'s name; a blank one would be sent as `"model": ""`.
 * @throws SlidingContextError `INVALID_OPTION` for an empty or blank name
 */
function summarizerModelFlag(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  if (name.trim() === '') throw new SlidingContextError('INVALID_OPTION', '--summarizer-model: the name is empty; give a model, e.g. gpt-4o-mini, or leave the flag out for the default.');
  return name;
}

/**
 * `--through`'s exchange number: `12` or `#12`, as `history` shows it.
 * @throws SlidingContextError `INVALID_OPTION` for anything else
 */
export function parseThroughFlag(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const match = /^\s*#?(\d+)\s*$/.exec(text);
  if (!match) throw new SlidingContextError('INVALID_OPTION', `--through: "${text}" is not an exchange number; give one as history shows it, e.g. --through 12 for #12.`);
  return Number(match[1]);
}

/**
 * `compact <agent>`: condenses every exchange but the pinned one and the latest (with `--through`,
 * up to that exchange) into the summary and shows it, guided by `--focus`. `--dry-run` shows the
 * summary with its loss report (`dropped` in JSON) and changes nothing. On a terminal (without
 * `--json` or `--yes`) it shows both first and asks before it replaces anything. A summary that would not shrink the request is not
 * used: the window keeps to plain eviction, and the output says so.
 */
export async function runCompactCommand(agentId: string, flags: CompactFlags, io: CliIo): Promise<void> {
  const through = parseThroughFlag(flags.through);
  // The summarizer's flags are checked before the config or the store is read, with any summarizer.
  parseBaseUrl('--base-url', flags.baseUrl);
  summarizerModelFlag(flags.summarizerModel);
  const maxSummaryShare = summaryShareSetting(flags.maxSummaryShare);
  const config = await loadCliConfig(io);
  const summarizer = await summarizerFor(flags, io, config);
  const thresholdPercent = cliCondenseThreshold(config, io);
  await withCliStore(io, flags, async (store) => {
    const { provider, model, settings } = await agentTarget(io, store, agentId, flags);
    const counter = await loadCliCounter(io, provider, model);
    const condense = { summarizer, thresholdPercent, maxSummaryShare };
    const conversation = await openConversation({ store, agentId, provider, model, counter, ...settings, condense });
    const options = { through, focus: flags.focus };
    // On a terminal the summary is previewed and applied only on a yes, as the chat's /compact does.
    const ask = flags.json !== true && flags.yes !== true && flags.dryRun !== true ? io.confirm : undefined;
    if (ask) {
      const preview = withRedactedDetail(await conversation.compact({ ...options, dryRun: true }));
      if (preview.summary === null || preview.fallback) {
        warnOnFallback(io, preview);
        io.stdout.write(`${describeOutcome(preview, true)}\n`);
        return;
      }
      io.stdout.write(`${preview.summary}\n\n${renderLossReport(preview.dropped)}\n\n${formatCount(preview.coveredExchanges, 'exchange')}: ${formatNumber(preview.tokensBefore)} → ${formatNumber(preview.tokensAfter)} tokens\n`);
      if (!(await ask('Replace them with this summary?'))) {
        io.stdout.write('Nothing changed.\n');
        return;
      }
    }
    const result = withRedactedDetail(await conversation.compact({ ...options, dryRun: flags.dryRun === true }));
    warnOnFallback(io, result);
    const outcome = describeOutcome(result, flags.dryRun === true);
    // After a preview the summary is on the screen already.
    const loss = result.summary === null ? '' : renderLossReport(result.dropped);
    print(io, flags.json, result, ask ? outcome : [result.summary ?? '', loss, outcome].filter(Boolean).join('\n\n'));
  }, { create: false });
}

type CompactResult = Awaited<ReturnType<Conversation['compact']>>;

/** The result with its failure detail redacted: it is a provider's error text, which may echo the key it was sent. */
function withRedactedDetail(result: CompactResult): CompactResult {
  return { ...result, fallbackDetail: result.fallbackDetail === null ? null : redactSecrets(result.fallbackDetail) };
}

/** On stderr, with --json too: a failed or discarded summary is never silent. */
function warnOnFallback(io: CliIo, result: CompactResult): void {
  if (result.fallback) {
    io.stderr.write(`warning: the summary failed (${result.fallback}: ${neutralizeControlCharacters(result.fallbackDetail ?? 'no detail')}); nothing was condensed, the window falls back to plain eviction and the history is unchanged.\n`);
  }
}

/** One sentence on what a compaction did (or, for a dry run, would do). */
function describeOutcome(result: CompactResult, dryRun: boolean): string {
  if (result.fallback) return `No summary (${result.fallback}: ${result.fallbackDetail ?? 'no detail'}); fallback: plain eviction, the window is unchanged.`;
  if (result.coveredExchanges === 0) return 'Nothing new to condense: every exchange but the latest (and any pinned one) is in the summary already, or there is none.';
  return `${dryRun ? 'Dry run: nothing changed. The summary would cover' : 'The summary now covers'} ${formatCount(result.coveredExchanges, 'exchange')}: ${formatNumber(result.tokensBefore)} → ${formatNumber(result.tokensAfter)} tokens.`;
}
