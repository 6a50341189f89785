import type { OpenAiImageRule } from '../data/openai-counting-data.js';
import { type AnthropicImageTier, geminiImage } from '../data/estimate-families.js';
import type { ImageDimensions } from './image-dimensions.js';

/** A token count for one image and whether its dimensions were known. */
export interface ImageTokens {
  readonly tokens: number;
  readonly exact: boolean;
}

/** OpenAI image detail levels; `auto` is counted as `high`, the larger. */
export type ImageDetail = 'low' | 'high' | 'auto';

function scaleToFit(size: ImageDimensions, maxWidth: number, maxHeight: number): ImageDimensions {
  const scale = Math.min(1, maxWidth / size.width, maxHeight / size.height);
  return { width: size.width * scale, height: size.height * scale };
}

/**
 * OpenAI: 512 px tiles after fitting in 2048×2048 and bringing the short side to 768 px, or
 * 32 px patches (capped) times a multiplier. Unknown dimensions cost the largest possible amount.
 * @see https://platform.openai.com/docs/guides/images-vision#calculating-costs
 */
export function countOpenAiImage(rule: OpenAiImageRule, size: ImageDimensions | undefined, detail: ImageDetail): ImageTokens {
  if (rule.kind === 'tiles') {
    if (detail === 'low') return { tokens: rule.baseTokens, exact: true };
    if (!size) return { tokens: rule.baseTokens + rule.tileTokens * 8, exact: false };
    const fitted = scaleToFit(size, 2048, 2048);
    const shortSide = Math.min(fitted.width, fitted.height);
    const scale = shortSide > 768 ? 768 / shortSide : 1;
    const tiles = Math.ceil((fitted.width * scale) / 512) * Math.ceil((fitted.height * scale) / 512);
    return { tokens: rule.baseTokens + rule.tileTokens * tiles, exact: true };
  }
  if (!size) return { tokens: Math.ceil(rule.maxPatches * rule.multiplier), exact: false };
  let patches = Math.ceil(size.width / 32) * Math.ceil(size.height / 32);
  if (patches > rule.maxPatches) {
    let ratio = Math.sqrt((32 * 32 * rule.maxPatches) / (size.width * size.height));
    ratio *= Math.min(
      Math.floor((size.width * ratio) / 32) / ((size.width * ratio) / 32),
      Math.floor((size.height * ratio) / 32) / ((size.height * ratio) / 32),
    );
    patches = Math.min(rule.maxPatches, Math.ceil((size.width * ratio) / 32) * Math.ceil((size.height * ratio) / 32));
  }
  return { tokens: Math.ceil(patches * rule.multiplier), exact: true };
}

/**
 * Anthropic: ⌈w/28⌉ × ⌈h/28⌉ after scaling to the tier's long edge and token cap.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/vision#calculate-image-costs
 */
export function countAnthropicImage(tier: AnthropicImageTier, size: ImageDimensions | undefined): ImageTokens {
  if (!size) return { tokens: tier.maxTokens, exact: false };
  let fitted = scaleToFit(size, tier.maxLongEdgePixels, tier.maxLongEdgePixels);
  const patches = (dimensions: ImageDimensions) => Math.ceil(dimensions.width / 28) * Math.ceil(dimensions.height / 28);
  if (patches(fitted) > tier.maxTokens) {
    const scale = Math.sqrt(tier.maxTokens / patches(fitted));
    fitted = { width: fitted.width * scale, height: fitted.height * scale };
  }
  return { tokens: Math.min(tier.maxTokens, patches(fitted)), exact: false };
}

/**
 * Gemini: 258 tokens up to 384×384, else 258 per crop tile; Gemini 3 by media resolution.
 * @see https://ai.google.dev/gemini-api/docs/tokens#multimodal-tokens
 */
export function countGeminiImage(
  model: string,
  size: ImageDimensions | undefined,
  mediaResolution: 'low' | 'medium' | 'high' = 'high',
): ImageTokens {
  if (geminiImage.mediaResolutionModelPrefixes.some((prefix) => model.startsWith(prefix))) {
    return { tokens: geminiImage.mediaResolutionTokens[mediaResolution], exact: false };
  }
  if (!size) return { tokens: geminiImage.tokensPerTile * 6, exact: false };
  if (size.width <= geminiImage.smallImagePixels && size.height <= geminiImage.smallImagePixels) {
    return { tokens: geminiImage.tokensPerTile, exact: false };
  }
  const unit = Math.min(768, Math.max(256, Math.floor(Math.min(size.width, size.height) / 1.5)));
  const tiles = Math.ceil(size.width / unit) * Math.ceil(size.height / unit);
  return { tokens: geminiImage.tokensPerTile * tiles, exact: false };
}
