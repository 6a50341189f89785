import { SlidingContextError } from '../errors/sliding-context-error.js';
import type { ModelInfo } from '../tokens/model-catalog.js';

/** Share of the context window kept free as a safety buffer, by default, as Roo Code keeps. */
export const DEFAULT_BUFFER_FRACTION = 0.1;

/** Output reserved when the catalog does not know the model's maximum output. */
export const DEFAULT_RESERVED_OUTPUT_TOKENS = 8192;

/** A budget worked out from the model: the figures and the tokens the request may use. */
export interface ModelBudget {
  readonly contextWindowTokens: number;
  readonly reservedOutputTokens: number;
  readonly bufferFraction: number;
  /** `contextWindowTokens × (1 − bufferFraction) − reservedOutputTokens`, rounded down. */
  readonly allowedTokens: number;
}

/** Overrides of the catalog's figures. */
export interface ModelBudgetOverrides {
  readonly contextWindowTokens?: number | undefined;
  readonly reservedOutputTokens?: number | undefined;
  readonly bufferFraction?: number | undefined;
}

/**
 * The tokens a request may use on this model: its context window less a safety buffer and the
 * output it must leave room for. The output reserved is the model's maximum output when the
 * catalog knows the model, else 8,192. A 200k window reserving 8,192 allows 171,808 tokens.
 * @throws SlidingContextError `BUDGET_INVALID` when that leaves no token: a budget of 0 would turn windowing off
 */
export function modelBudget(
  model: Pick<ModelInfo, 'known' | 'contextWindowTokens' | 'maxOutputTokens'> & Partial<Pick<ModelInfo, 'provider' | 'model'>>,
  overrides: ModelBudgetOverrides = {},
): ModelBudget {
  const contextWindowTokens = overrides.contextWindowTokens ?? model.contextWindowTokens;
  const reservedOutputTokens = overrides.reservedOutputTokens ?? (model.known ? model.maxOutputTokens : DEFAULT_RESERVED_OUTPUT_TOKENS);
  const bufferFraction = overrides.bufferFraction ?? DEFAULT_BUFFER_FRACTION;
  const allowedTokens = Math.floor(contextWindowTokens * (1 - bufferFraction) - reservedOutputTokens);
  // 0 means "windowing off": a model budget that works out to nothing must fail, not disable it.
  if (!(allowedTokens >= 1)) {
    const name = model.provider !== undefined && model.model !== undefined ? ` of ${model.provider}/${model.model}` : '';
    throw new SlidingContextError(
      'BUDGET_INVALID',
      `The model budget${name} works out to ${allowedTokens} tokens: context window ${contextWindowTokens} less a ${bufferFraction} buffer less ${reservedOutputTokens} reserved output; `
      + `reserve less output (--max-output, or reservedOutputTokens) or give a budget (--budget N, or budgetTokens).`,
    );
  }
  return { contextWindowTokens, reservedOutputTokens, bufferFraction, allowedTokens };
}
