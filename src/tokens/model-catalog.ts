import * as openAiModels from 'gpt-tokenizer/models';
import { modelToEncodingMap } from 'gpt-tokenizer/mapping';
import { anthropicModels } from 'tokenlens/providers/anthropic';
import { googleModels } from 'tokenlens/providers/google';
import { type EstimateFamilyName, estimateFamilyByPrefix } from './data/estimate-families.js';
import type { EncodingName } from './encoding/text-encoding.js';

/** How a model's tokens are counted. */
export type TokenizerChoice =
  | { readonly kind: 'exact'; readonly encoding: EncodingName }
  | { readonly kind: 'estimate'; readonly family: EstimateFamilyName }
  | { readonly kind: 'bytes' };

/** What sliding-context knows of a model. */
export interface ModelInfo {
  readonly provider: string;
  readonly model: string;
  /** False when no catalog knows the model and defaults were assumed. */
  readonly known: boolean;
  readonly contextWindowTokens: number;
  readonly maxOutputTokens: number;
  readonly tokenizer: TokenizerChoice;
}

/** A user's correction or addition to the catalog, keyed `provider/model` or `model`. */
export interface ModelOverride {
  readonly contextWindowTokens?: number | undefined;
  readonly maxOutputTokens?: number | undefined;
  readonly encoding?: EncodingName | undefined;
  readonly estimateFamily?: EstimateFamilyName | undefined;
}

interface Limits {
  readonly contextWindowTokens: number;
  readonly maxOutputTokens: number;
}

/** Limits assumed for a model no catalog knows. */
const providerDefaults: Readonly<Record<string, Limits>> = {
  openai: { contextWindowTokens: 128_000, maxOutputTokens: 16_384 },
  anthropic: { contextWindowTokens: 200_000, maxOutputTokens: 64_000 },
  google: { contextWindowTokens: 1_048_576, maxOutputTokens: 65_536 },
};
const unknownProvider: Limits = { contextWindowTokens: 128_000, maxOutputTokens: 8192 };

type TokenlensCatalog = Readonly<Record<string, { readonly limit?: { readonly context?: number; readonly output?: number } }>>;

function tokenlensLimits(models: TokenlensCatalog, model: string): Limits | undefined {
  const limit = models[model]?.limit;
  if (!limit?.context) return undefined;
  return { contextWindowTokens: limit.context, maxOutputTokens: limit.output ?? 8192 };
}

function openAiLimits(model: string): Limits | undefined {
  const spec = (openAiModels as Readonly<Record<string, { context_window?: number; max_output_tokens?: number } | undefined>>)[model];
  if (!spec?.context_window) return undefined;
  return { contextWindowTokens: spec.context_window, maxOutputTokens: spec.max_output_tokens ?? 16_384 };
}

/** Where each provider's models are catalogued, and how each provider's tokens are counted. */
const providers: Readonly<Record<string, { limits(model: string): Limits | undefined; tokenizer(model: string): TokenizerChoice }>> = {
  openai: {
    limits: openAiLimits,
    tokenizer: (model) => {
      const mapped = (modelToEncodingMap as Readonly<Record<string, string | undefined>>)[model];
      return { kind: 'exact', encoding: mapped === 'cl100k_base' ? 'cl100k_base' : 'o200k_base' };
    },
  },
  anthropic: {
    limits: (model) => tokenlensLimits(anthropicModels.models, model),
    tokenizer: (model) => estimateFor('anthropic', model),
  },
  google: {
    limits: (model) => tokenlensLimits(googleModels.models, model),
    tokenizer: (model) => estimateFor('google', model),
  },
};

function estimateFor(provider: 'anthropic' | 'google', model: string): TokenizerChoice {
  const rule = estimateFamilyByPrefix[provider].find(([prefix]) => model.startsWith(prefix));
  return { kind: 'estimate', family: rule?.[1] ?? 'gemini' };
}

/**
 * Looks a model up: context window and max output from maintained catalogs (gpt-tokenizer for
 * OpenAI, tokenlens for Anthropic and Google), the tokenizer from gpt-tokenizer's encoding map or
 * our estimate families, and any override on top. Unknown models get their provider's defaults
 * and `known: false`, so that callers can warn.
 */
export function resolveModel(
  provider: string,
  model: string,
  overrides: Readonly<Record<string, ModelOverride>> = {},
): ModelInfo {
  const override = overrides[`${provider}/${model}`] ?? overrides[model];
  const entry = providers[provider];
  const limits = entry?.limits(model);
  const fallback = providerDefaults[provider] ?? unknownProvider;
  let tokenizer: TokenizerChoice = entry?.tokenizer(model) ?? { kind: 'bytes' };
  if (override?.encoding) tokenizer = { kind: 'exact', encoding: override.encoding };
  if (override?.estimateFamily) tokenizer = { kind: 'estimate', family: override.estimateFamily };
  return {
    provider,
    model,
    known: limits !== undefined || override?.contextWindowTokens !== undefined,
    contextWindowTokens: override?.contextWindowTokens ?? limits?.contextWindowTokens ?? fallback.contextWindowTokens,
    maxOutputTokens: override?.maxOutputTokens ?? limits?.maxOutputTokens ?? fallback.maxOutputTokens,
    tokenizer,
  };
}
