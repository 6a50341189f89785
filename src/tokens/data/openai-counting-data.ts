import type { EncodingName } from '../encoding/text-encoding.js';

/**
 * How OpenAI chat models frame a request, per encoding generation.
 * - Messages: 3 tokens each, +1 for a `name`, +3 to prime the reply.
 *   @see https://github.com/openai/openai-cookbook/blob/main/examples/How_to_count_tokens_with_tiktoken.ipynb
 * - Tools are rendered as TypeScript-like `namespace functions { … }` text; with tools present the
 *   first system message gains a trailing newline and the request carries a fixed overhead
 *   (`toolsOverheadTokens`, `toolsWithSystemTokens` when a system message exists). The cl100k
 *   figures reproduce the API-measured cases published with hmarr/openai-chat-tokens; the o200k
 *   figures reproduce the Cookbook's gpt-4o tools example (101 prompt tokens).
 * - A function call in an assistant message costs its name and arguments plus
 *   `functionCallTokens`; this rendering is published for `function_call` only and is applied to
 *   `tool_calls` as an estimate.
 */
export interface OpenAiFraming {
  readonly tokensPerMessage: number;
  readonly tokensPerName: number;
  readonly replyPrimingTokens: number;
  readonly toolsOverheadTokens: number;
  readonly toolsWithSystemTokens: number;
  readonly functionCallTokens: number;
  /** Characters per token of random base64 (measured on 600 KB, the lowest ratio seen). */
  readonly base64CharactersPerToken: number;
}

/** ChatML framing, the same for both encodings. */
const chatMl = {
  tokensPerMessage: 3,
  tokensPerName: 1,
  replyPrimingTokens: 3,
  toolsOverheadTokens: 9,
  toolsWithSystemTokens: -4,
  functionCallTokens: 3,
} as const;

export const openAiFraming: Record<EncodingName, OpenAiFraming> = {
  cl100k_base: { ...chatMl, base64CharactersPerToken: 1.37 },
  o200k_base: { ...chatMl, base64CharactersPerToken: 1.44 },
};

/** An image rule: tiles of 512 px after fitting, or 32 px patches scaled by a multiplier. */
export type OpenAiImageRule =
  | { readonly kind: 'tiles'; readonly baseTokens: number; readonly tileTokens: number }
  | { readonly kind: 'patches'; readonly multiplier: number; readonly maxPatches: number };

/**
 * Image input costs by model, first matching prefix wins (longest prefixes first).
 * @see https://platform.openai.com/docs/guides/images-vision#calculating-costs
 */
export const openAiImageRules: readonly (readonly [prefix: string, rule: OpenAiImageRule])[] = [
  ['gpt-4.1-mini', { kind: 'patches', multiplier: 1.62, maxPatches: 1536 }],
  ['gpt-4.1-nano', { kind: 'patches', multiplier: 2.46, maxPatches: 1536 }],
  ['gpt-5-mini', { kind: 'patches', multiplier: 1.62, maxPatches: 1536 }],
  ['gpt-5-nano', { kind: 'patches', multiplier: 2.46, maxPatches: 1536 }],
  ['o4-mini', { kind: 'patches', multiplier: 1.72, maxPatches: 1536 }],
  ['gpt-4o-mini', { kind: 'tiles', baseTokens: 2833, tileTokens: 5667 }],
  ['computer-use-preview', { kind: 'tiles', baseTokens: 65, tileTokens: 129 }],
  ['gpt-5', { kind: 'tiles', baseTokens: 70, tileTokens: 140 }],
  ['o1', { kind: 'tiles', baseTokens: 75, tileTokens: 150 }],
  ['o3', { kind: 'tiles', baseTokens: 75, tileTokens: 150 }],
  ['gpt-4.5', { kind: 'tiles', baseTokens: 85, tileTokens: 170 }],
  ['gpt-4.1', { kind: 'tiles', baseTokens: 85, tileTokens: 170 }],
  ['gpt-4o', { kind: 'tiles', baseTokens: 85, tileTokens: 170 }],
  ['', { kind: 'tiles', baseTokens: 85, tileTokens: 170 }],
];
