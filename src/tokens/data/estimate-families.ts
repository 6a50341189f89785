import type { ContentType } from '../content-type.js';

/**
 * Offline estimates for providers whose tokenizers are not public: o200k counts times a factor
 * per content type. The factors lean high (the budget is a ceiling) and are corrected at run time
 * by the provider's reported usage (`UsageCalibration`).
 * - Claude up to 4.6: English runs about 4.3 characters per token against o200k's 4.4 on our
 *   prose corpus; code and JSON split finer; CJK costs markedly more than in o200k.
 * - Claude Opus 4.7 and later use a new tokenizer: about 1.45× the 4.6 count on English prose,
 *   1.15–1.33× on code, 1.31× on text-heavy JSON, unchanged on CJK and Cyrillic (third-party
 *   measurement against the count-tokens endpoint).
 *   @see https://sol.ava.dev/writings/2026-04-17-opus-4-7-tokenizer.html
 * - Gemini's SentencePiece vocabulary (256k) sits close to o200k.
 */
export interface EstimateFamily {
  readonly name: string;
  readonly factors: Readonly<Record<ContentType, number>>;
  /** Tokens around each message (role markers). */
  readonly messageFramingTokens: number;
  /** Tokens around the whole request. */
  readonly requestFramingTokens: number;
}

export const estimateFamilies = {
  'claude-2024': {
    name: 'claude-2024',
    factors: { prose: 1.12, code: 1.22, json: 1.22, cjk: 1.45, other: 1.22 },
    messageFramingTokens: 4,
    requestFramingTokens: 3,
  },
  'claude-2026': {
    name: 'claude-2026',
    factors: { prose: 1.62, code: 1.5, json: 1.6, cjk: 1.45, other: 1.45 },
    messageFramingTokens: 4,
    requestFramingTokens: 3,
  },
  'gemini': {
    name: 'gemini',
    factors: { prose: 1.08, code: 1.18, json: 1.18, cjk: 1.05, other: 1.15 },
    messageFramingTokens: 4,
    requestFramingTokens: 2,
  },
} as const satisfies Record<string, EstimateFamily>;

export type EstimateFamilyName = keyof typeof estimateFamilies;

/**
 * Model id prefixes of each family, first match wins. Models before Claude Opus 4.7 are listed;
 * anything else, a future model included, gets the newest family, whose estimates are higher.
 */
export const estimateFamilyByPrefix: Readonly<Record<'anthropic' | 'google', readonly (readonly [string, EstimateFamilyName])[]>> = {
  anthropic: [
    ['claude-instant', 'claude-2024'],
    ['claude-2', 'claude-2024'],
    ['claude-3', 'claude-2024'],
    ['claude-opus-4-2025', 'claude-2024'],
    ['claude-opus-4-0', 'claude-2024'],
    ['claude-opus-4-1', 'claude-2024'],
    ['claude-opus-4-5', 'claude-2024'],
    ['claude-opus-4-6', 'claude-2024'],
    ['claude-sonnet-4', 'claude-2024'],
    ['claude-haiku-4', 'claude-2024'],
    ['', 'claude-2026'],
  ],
  google: [['', 'gemini']],
};

/**
 * The hidden system prompt Anthropic adds when tools are present, by model and `tool_choice`
 * (`auto`/`none` vs `any`/`tool`), first matching prefix wins. The Claude 3 rows are published;
 * the last row (Claude 4 and later) comes from third-party measurement.
 * @see https://docs.anthropic.com/en/docs/tool-use-pricing-and-tokens
 */
export const anthropicToolSystemPromptTokens: readonly (readonly [prefix: string, auto: number, any: number])[] = [
  ['claude-3-opus', 530, 281],
  ['claude-3-sonnet', 159, 235],
  ['claude-3-haiku', 264, 340],
  ['claude-3-5-haiku', 264, 340],
  ['', 346, 313],
];

/**
 * Anthropic image cost: ⌈w/28⌉ × ⌈h/28⌉ tokens after the image is scaled to fit its tier.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/vision#calculate-image-costs
 */
export interface AnthropicImageTier {
  readonly maxLongEdgePixels: number;
  readonly maxTokens: number;
}
/** The tier of current models, also used when a model's family is unknown. */
export const newestAnthropicImageTier: AnthropicImageTier = { maxLongEdgePixels: 2576, maxTokens: 4784 };
export const anthropicImageTiers: Readonly<Record<string, AnthropicImageTier>> = {
  'claude-2024': { maxLongEdgePixels: 1568, maxTokens: 1568 },
  'claude-2026': newestAnthropicImageTier,
};

/**
 * Gemini image cost: 258 tokens for an image with both sides at most 384 px, else 258 per tile;
 * Gemini 3 charges by `media_resolution` instead (default high).
 * @see https://ai.google.dev/gemini-api/docs/tokens#multimodal-tokens
 * @see https://ai.google.dev/gemini-api/docs/media-resolution
 */
export const geminiImage = {
  tokensPerTile: 258,
  smallImagePixels: 384,
  mediaResolutionTokens: { low: 280, medium: 560, high: 1120 },
  mediaResolutionModelPrefixes: ['gemini-3'],
} as const;

/** Tokens per PDF page when the page count is unknown: text plus the page image, upper end. */
export const pdfTokensPerPage = 3000;
/** PDF bytes per page assumed when estimating pages from the file size. */
export const pdfBytesPerPage = 60_000;
