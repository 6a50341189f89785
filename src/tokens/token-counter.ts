import type { ModelMessage, ToolDefinition } from '../message/message.js';
import type { ToolChoice } from './rules/counting-rules.js';

/** A token count and how it was obtained. */
export interface TokenCount {
  /** Number of input tokens. */
  readonly tokens: number;
  /** True only when a real tokenizer for this model produced the count. */
  readonly exact: boolean;
  /** How the count was made, e.g. `bytes/4` or `o200k_base`. */
  readonly method: string;
}

/** Which model a request is for: counting depends on both. */
export interface CountTarget {
  readonly provider: string;
  readonly model: string;
}

/** The `provider/model` key that stored counts are filed under. */
export const countTargetKey = (target: CountTarget): string => `${target.provider}/${target.model}`;

/** A request in the neutral model: what will be sent, before a provider shapes it. */
export interface CountableRequest {
  readonly system?: string | undefined;
  readonly tools?: readonly ToolDefinition[] | undefined;
  readonly toolChoice?: ToolChoice | undefined;
  readonly messages: readonly ModelMessage[];
}

/**
 * Counts the tokens of a request for a provider and model. A request is counted in segments,
 * the preamble (framing, system prompt, tool definitions) and one per message, and `count` is
 * always exactly the sum of the segments, so that windows can be planned segment by segment.
 */
export interface TokenCounter {
  /** Counts a whole request: the preamble plus every message. */
  count(input: CountTarget & { readonly request: CountableRequest }): TokenCount;
  /** Counts the preamble: request framing, system prompt and tool definitions. */
  countPreamble(
    input: CountTarget & {
      readonly system?: string | undefined;
      readonly tools?: readonly ToolDefinition[] | undefined;
      readonly toolChoice?: ToolChoice | undefined;
    },
  ): TokenCount;
  /** Counts one message as it sits in the request. */
  countMessage(input: CountTarget & { readonly message: ModelMessage }): TokenCount;
}

export { DEFAULT_MODEL, DEFAULT_PROVIDER, defaultModelFor } from './default-target.js';
