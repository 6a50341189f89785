import type { Complete } from '../condense/complete.js';
import { llmSummarizer as summarizerWithComplete, type LlmSummarizerOptions as CompleteSummarizerOptions } from '../condense/llm-summarizer.js';
import type { Summarizer } from '../condense/summarizer.js';
import { completeFor, type ProviderClient } from './provider-table.js';

export { DEFAULT_CONDENSING_PROMPT } from '../condense/llm-summarizer.js';

/**
 * An official SDK client a summary is asked of: OpenAI (also any OpenAI-compatible server through
 * its `baseURL`: llama.cpp, vLLM, Ollama), Anthropic or Google.
 */
export type SummaryClient = ProviderClient;

/** The summarizer's options with an SDK client in place of `complete`; its provider catalogues the model. */
export interface LlmClientSummarizerOptions extends Omit<CompleteSummarizerOptions, 'complete' | 'provider'> {
  readonly client: SummaryClient;
}

/** Options of {@link llmSummarizer}: a `complete` function, or an official SDK client. */
export type LlmSummarizerOptions = CompleteSummarizerOptions | LlmClientSummarizerOptions;

/** The one-shot completion of `client` with `model`, as the summarizer takes it. */
export function completeWithClient(client: SummaryClient, model: string): Complete {
  return completeFor(client.provider, client.client, model);
}

/**
 * The LLM summarizer (see `condense/llm-summarizer`), given either `complete` or, as a
 * convenience, `{ client: { provider, client } }`, which becomes `completeWithClient(client, model)`.
 */
export function llmSummarizer(options: LlmSummarizerOptions): Summarizer {
  if (!('client' in options)) return summarizerWithComplete(options);
  const { client, ...rest } = options;
  return summarizerWithComplete({ ...rest, provider: client.provider, complete: completeWithClient(client, options.model) });
}
