import type { ModelMessage } from '../message/message.js';
import { toolOutputText } from '../message/tool-output-text.js';
import { toolArgumentsText } from '../message/tool-call-input.js';
import { classifyContent, type ContentType } from './content-type.js';
import { sumTokenCounts } from './sum-token-counts.js';
import type { CountableRequest, CountTarget, TokenCount, TokenCounter } from './token-counter.js';

/** Options of a {@link UsageCalibration}. */
export interface UsageCalibrationOptions {
  readonly counter: TokenCounter;
  /** Weight of the newest observation in the moving average (default 0.3). */
  readonly smoothing?: number | undefined;
  /** Bounds of a correction factor (default 0.5 to 2). */
  readonly minFactor?: number | undefined;
  readonly maxFactor?: number | undefined;
}

interface Anchor {
  readonly targetKey: string;
  readonly preambleKey: string;
  readonly messages: readonly ModelMessage[];
  readonly actualTokens: number;
}

const targetKey = (target: CountTarget) => `${target.provider}/${target.model}`;

function textOf(message: ModelMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((part) => {
      if (part.type === 'text' || part.type === 'reasoning') return part.text;
      if (part.type === 'tool-result') return toolOutputText(part.output);
      if (part.type === 'tool-call') return toolArgumentsText(part);
      return '';
    })
    .join('\n');
}

/**
 * Learns from the input tokens a provider reports. The last reported request becomes an anchor:
 * a request that extends it is counted as the reported figure plus the estimate of what is new.
 * Every report also updates, per model and content type, a clamped moving average of
 * actual ÷ estimate that corrects future estimates (exact counts are left alone).
 * A switch of provider or model drops the anchor.
 */
export class UsageCalibration {
  readonly #counter: TokenCounter;
  readonly #smoothing: number;
  readonly #minFactor: number;
  readonly #maxFactor: number;
  readonly #factors = new Map<string, number>();
  readonly #types = new WeakMap<ModelMessage, ContentType>();
  #anchor: Anchor | undefined;

  constructor(options: UsageCalibrationOptions) {
    this.#counter = options.counter;
    this.#smoothing = options.smoothing ?? 0.3;
    this.#minFactor = options.minFactor ?? 0.5;
    this.#maxFactor = options.maxFactor ?? 2;
  }

  /** The correction factor learnt for a model and content type (1 until something is learnt). */
  factor(target: CountTarget, type: ContentType): number {
    return this.#factors.get(`${targetKey(target)}|${type}`) ?? 1;
  }

  /** Records what the provider reported reading for `request`. */
  record(input: CountTarget & { readonly request: CountableRequest; readonly inputTokens: number }): void {
    const { request, inputTokens } = input;
    const key = targetKey(input);
    const segments = this.#segments(input, request);
    const exactTokens = segments.filter((segment) => segment.count.exact).reduce((sum, segment) => sum + segment.count.tokens, 0);
    const estimated = segments.filter((segment) => !segment.count.exact);
    const estimatedTokens = estimated.reduce((sum, segment) => sum + segment.count.tokens, 0);
    if (estimatedTokens > 0) {
      const byType = new Map<ContentType, number>();
      for (const segment of estimated) {
        const type = segment.type();
        byType.set(type, (byType.get(type) ?? 0) + segment.count.tokens);
      }
      const dominant = [...byType].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'other';
      const observed = Math.min(this.#maxFactor, Math.max(this.#minFactor, (inputTokens - exactTokens) / estimatedTokens));
      const factorKey = `${key}|${dominant}`;
      const previous = this.#factors.get(factorKey);
      this.#factors.set(factorKey, previous === undefined ? observed : previous + this.#smoothing * (observed - previous));
    }
    this.#anchor = {
      targetKey: key,
      preambleKey: JSON.stringify([request.system, request.tools, request.toolChoice]),
      messages: [...request.messages],
      actualTokens: inputTokens,
    };
  }

  /** Counts a request: the anchor plus what is new when it extends the anchor, else corrected estimates. */
  count(input: CountTarget & { readonly request: CountableRequest }): TokenCount {
    const { request } = input;
    const anchor = this.#anchor;
    if (anchor && anchor.targetKey !== targetKey(input)) this.#anchor = undefined;
    if (anchor && this.#extends(anchor, input)) {
      const added = request.messages.slice(anchor.messages.length).map((message) => this.#corrected(input, message));
      const total = sumTokenCounts(added);
      return { tokens: anchor.actualTokens + total.tokens, exact: total.exact && added.length === 0, method: `${added.length > 0 ? total.method : 'reported'}+usage` };
    }
    const segments = this.#segments(input, request);
    return sumTokenCounts(segments.map((segment) => this.#scale(input, segment.count, segment.type)));
  }

  #extends(anchor: Anchor, input: CountTarget & { readonly request: CountableRequest }): boolean {
    const { request } = input;
    if (anchor.targetKey !== targetKey(input) || request.messages.length < anchor.messages.length) return false;
    if (JSON.stringify([request.system, request.tools, request.toolChoice]) !== anchor.preambleKey) return false;
    return anchor.messages.every((message, index) => {
      const other = request.messages[index];
      return other === message || JSON.stringify(other) === JSON.stringify(message);
    });
  }

  #typeOf(message: ModelMessage): ContentType {
    let type = this.#types.get(message);
    if (!type) {
      type = classifyContent(textOf(message));
      this.#types.set(message, type);
    }
    return type;
  }

  /** Each part's count, and its content type when asked: an exact count needs none (classifying a long text takes time). */
  #segments(target: CountTarget, request: CountableRequest): { count: TokenCount; type: () => ContentType }[] {
    const preamble = this.#counter.countPreamble({ ...target, system: request.system, tools: request.tools, toolChoice: request.toolChoice });
    return [
      { count: preamble, type: () => classifyContent(request.system ?? '') },
      ...request.messages.map((message) => ({ count: this.#counter.countMessage({ ...target, message }), type: () => this.#typeOf(message) })),
    ];
  }

  #corrected(target: CountTarget, message: ModelMessage): TokenCount {
    return this.#scale(target, this.#counter.countMessage({ ...target, message }), () => this.#typeOf(message));
  }

  #scale(target: CountTarget, count: TokenCount, type: () => ContentType): TokenCount {
    if (count.exact) return count;
    const factor = this.factor(target, type());
    return factor === 1 ? count : { tokens: Math.ceil(count.tokens * factor), exact: false, method: `${count.method}+usage` };
  }
}
