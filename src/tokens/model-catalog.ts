import * as openAiModels from 'gpt-tokenizer/models';
import { modelToEncodingMap } from 'gpt-tokenizer/mapping';
import { ANTHROPIC_MODELS, GOOGLE_MODELS, OPENAI_MODELS } from 'llm-zoo/providers';
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

/** A catalog's entries: each model's API id with its limits. */
type Catalog = Readonly<Record<string, { readonly fullName: string; readonly contextWindow: number; readonly maxOutputTokens: number }>>;

/** A date at the end of a model id: `-20250929` (Anthropic) or `-2025-08-07` (OpenAI). */
const DATE_SUFFIX = /-(?:\d{8}|\d{4}-\d{2}-\d{2})$/;

/** The family a model id belongs to: the id without a trailing date. */
export function modelFamily(model: string): string {
  return model.replace(DATE_SUFFIX, '');
}

/**
 * A lookup over a catalog by id and by family, so that `claude-sonnet-4-5-20250929` finds
 * `claude-sonnet-4-5` and `claude-haiku-4-5` finds `claude-haiku-4-5-20251001`. Built on first use.
 */
function catalogLookup(catalog: () => Catalog): (model: string) => Limits | undefined {
  let index: Map<string, Limits> | undefined;
  return (model) => {
    if (!index) {
      const built = new Map<string, Limits>();
      const entries = Object.values(catalog()).filter((entry) => entry.contextWindow > 0);
      // Exact ids first, then families: an id the catalog lists wins over another id of its family.
      const limitsOf = (entry: Catalog[string]): Limits => ({ contextWindowTokens: entry.contextWindow, maxOutputTokens: entry.maxOutputTokens });
      for (const entry of entries) if (!built.has(entry.fullName)) built.set(entry.fullName, limitsOf(entry));
      for (const entry of entries) {
        const family = modelFamily(entry.fullName);
        if (!built.has(family)) built.set(family, limitsOf(entry));
      }
      index = built;
    }
    return index.get(model) ?? index.get(modelFamily(model));
  };
}

const anthropicLimits = catalogLookup(() => ANTHROPIC_MODELS);
const googleLimits = catalogLookup(() => GOOGLE_MODELS);
const otherOpenAiLimits = catalogLookup(() => OPENAI_MODELS);

function openAiLimits(model: string): Limits | undefined {
  const specs = openAiModels as Readonly<Record<string, { context_window?: number; max_output_tokens?: number } | undefined>>;
  const spec = specs[model]?.context_window ? specs[model] : specs[modelFamily(model)];
  if (!spec?.context_window) return otherOpenAiLimits(model);
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
    limits: anthropicLimits,
    tokenizer: (model) => estimateFor('anthropic', model),
  },
  google: {
    limits: googleLimits,
    tokenizer: (model) => estimateFor('google', model),
  },
};

function estimateFor(provider: 'anthropic' | 'google', model: string): TokenizerChoice {
  const rule = estimateFamilyByPrefix[provider].find(([prefix]) => model.startsWith(prefix));
  return { kind: 'estimate', family: rule?.[1] ?? 'gemini' };
}

/**
 * Looks a model up: context window and max output from maintained catalogs (gpt-tokenizer for
 * OpenAI, llm-zoo for Anthropic, Google and older OpenAI ids), a dated id as its family, the
 * tokenizer from gpt-tokenizer's encoding map or our estimate families, and any override on top
 * (keyed `provider/model`, `model` or the family). Unknown models get their provider's defaults
 * and `known: false`, so that callers can warn.
 */
export function resolveModel(
  provider: string,
  model: string,
  overrides: Readonly<Record<string, ModelOverride>> = {},
): ModelInfo {
  const family = modelFamily(model);
  const override = overrides[`${provider}/${model}`] ?? overrides[model] ?? overrides[`${provider}/${family}`] ?? overrides[family];
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
