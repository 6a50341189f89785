import { inputTokensFromUsage } from '../tokens/provider-usage.js';
import type { CountableRequest, TokenCount, TokenCounter } from '../tokens/token-counter.js';
import { UsageCalibration } from '../tokens/usage-calibration.js';

/**
 * The budget a conversation's window works to: the configured one, less the tokens the
 * provider's reported usage showed our count missed, and never above what a provider's overflow
 * answer showed fits. It also counts requests as calibrated by that usage.
 */
export class WorkingBudget {
  readonly #counter: TokenCounter;
  readonly #target: { readonly provider: string; readonly model: string };
  readonly #calibration: UsageCalibration;
  /** Tokens kept free because reported usage ran above our count of the same request. */
  #usageMargin = 0;
  #lastRequest: CountableRequest | undefined;
  /** The most tokens a request may take, learned from a provider's overflow answer. */
  #overflowCeiling: number | undefined;

  constructor(counter: TokenCounter, target: { readonly provider: string; readonly model: string }) {
    this.#counter = counter;
    this.#target = target;
    this.#calibration = new UsageCalibration({ counter });
  }

  /** The budget to plan with for a configured `budget` (0 stays 0: windowing disabled, unless an overflow set a ceiling). */
  tokens(budget: number): number {
    const working = budget === 0 ? 0 : Math.max(1, budget - this.#usageMargin);
    if (this.#overflowCeiling === undefined) return working;
    return working === 0 ? this.#overflowCeiling : Math.min(working, this.#overflowCeiling);
  }

  /** True once a provider has refused a request as too long. */
  get refusedBefore(): boolean {
    return this.#overflowCeiling !== undefined;
  }

  /** The request's count, corrected by reported usage; remembered as the last request sent. */
  count(request: CountableRequest): TokenCount {
    this.#lastRequest = request;
    return this.#calibration.count({ ...this.#target, request });
  }

  /**
   * Keeps free what a calibrated count runs over the configured budget. False when the margin
   * would not change (nothing more to learn).
   */
  widenMargin(calibrated: number, budget: number): boolean {
    const margin = this.#usageMargin + calibrated - budget;
    if (margin === this.#usageMargin) return false;
    this.#usageMargin = margin;
    return true;
  }

  /** Learns from a provider's usage for the last request. False when it reports no input tokens. */
  learn(usage: unknown): boolean {
    const inputTokens = usage === undefined ? undefined : inputTokensFromUsage(usage);
    if (inputTokens === undefined || !this.#lastRequest) return false;
    const counted = this.#counter.count({ ...this.#target, request: this.#lastRequest }).tokens;
    this.#calibration.record({ ...this.#target, request: this.#lastRequest, inputTokens });
    this.#usageMargin = Math.max(0, inputTokens - counted);
    return true;
  }

  /** Lowers the ceiling after a provider refused a request as too long. */
  lowerCeiling(ceiling: number): void {
    this.#overflowCeiling = Math.min(this.#overflowCeiling ?? ceiling, ceiling);
  }
}
