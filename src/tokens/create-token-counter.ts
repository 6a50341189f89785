import type { ModelMessage } from '../message/message.js';
import { hashText } from './_hash-text.js';
import { utf8ByteLength } from './bytes-per-token-counter.js';
import { estimateFamilies } from './data/estimate-families.js';
import { openAiFraming } from './data/openai-counting-data.js';
import type { EncodingName, TextEncoding } from './encoding/text-encoding.js';
import { createTextMeasurer, type Measure } from './measure.js';
import { type ModelInfo, type ModelOverride, resolveModel } from './model-catalog.js';
import type { CountingContext, CountingRules, Preamble } from './rules/counting-rules.js';
import { anthropicRules, googleRules } from './rules/estimated-rules.js';
import { openAiRules } from './rules/openai-rules.js';
import type { CountableRequest, CountTarget, TokenCount, TokenCounter } from './token-counter.js';

/** Counting rules by provider; a provider missing here is counted by bytes/4. */
const rulesByProvider: Readonly<Record<string, CountingRules>> = {
  openai: openAiRules,
  anthropic: anthropicRules,
  google: googleRules,
};

/** Options of {@link createTokenCounter}. */
export interface TokenCounterOptions {
  /** Loaded encodings (see `loadEncoding`); o200k_base is needed for anything but bytes/4. */
  readonly encodings: Partial<Record<EncodingName, TextEncoding>>;
  /** Corrections and additions to the model catalog, keyed `provider/model` or `model`. */
  readonly models?: Readonly<Record<string, ModelOverride>> | undefined;
  /** Told once per cause: an unknown model, a missing encoding, a counter that failed. */
  readonly onWarning?: ((message: string) => void) | undefined;
  /** Segments kept in the content cache (default 50,000). */
  readonly cacheSize?: number | undefined;
}

/** The sum of the first messages of the last request counted for a model. */
interface RunningTotal {
  readonly tokens: number;
  readonly exact: boolean;
  /** Distinct methods, sorted, joined by `+`. */
  readonly methods: string;
}

interface Dispatch {
  readonly key: string;
  readonly method: string;
  readonly context: CountingContext | undefined;
  readonly rules: CountingRules | undefined;
  readonly exactPossible: boolean;
}

/**
 * The token counter for real requests: exact for OpenAI (its encodings, ChatML framing, tools as
 * `namespace functions`, image tiles), estimated for Anthropic and Google, bytes/4 for anything
 * else. Every segment's count is cached by identity and by a hash of its content, so recounting a
 * grown conversation costs only what is new. A segment whose counter throws or answers 0 is
 * counted by bytes/4 instead, flagged inexact and never cached.
 */
export function createTokenCounter(options: TokenCounterOptions): TokenCounter & {
  /** What the catalog knows of a model (context window, max output, tokenizer). */
  modelInfo(target: CountTarget): ModelInfo;
} {
  const cacheSize = options.cacheSize ?? 50_000;
  const warned = new Set<string>();
  const warn = (message: string) => {
    if (warned.has(message)) return;
    warned.add(message);
    options.onWarning?.(message);
  };
  const dispatches = new Map<string, Dispatch>();
  const byIdentity = new Map<string, WeakMap<object, TokenCount>>();
  const byContent = new Map<string, TokenCount>();
  const runningSums = new Map<string, { messages: ModelMessage[]; totals: RunningTotal[] }>();

  const dispatch = ({ provider, model }: CountTarget): Dispatch => {
    const key = `${provider}/${model}`;
    const cached = dispatches.get(key);
    if (cached) return cached;
    const info = resolveModel(provider, model, options.models);
    const rules = rulesByProvider[provider];
    if (!info.known && rules) {
      warn(`Unknown model ${key}: assuming the ${provider} defaults (context window ${info.contextWindowTokens} tokens, ${provider} tokenizer family).`);
    }
    if (!rules) warn(`No token counting rules for provider "${provider}": counting bytes/4, an estimate.`);
    const wanted: EncodingName = info.tokenizer.kind === 'exact' ? info.tokenizer.encoding : 'o200k_base';
    const encoding = options.encodings[wanted] ?? options.encodings.o200k_base;
    let result: Dispatch;
    if (!rules || info.tokenizer.kind === 'bytes' || !encoding) {
      if (rules && !encoding) warn(`The ${wanted} encoding is not loaded: counting ${key} by bytes/4, an estimate.`);
      result = { key, method: 'bytes/4', context: undefined, rules: undefined, exactPossible: false };
    } else {
      const family = info.tokenizer.kind === 'estimate' ? estimateFamilies[info.tokenizer.family] : undefined;
      const exactPossible = info.tokenizer.kind === 'exact' && encoding.name === wanted;
      result = {
        key,
        method: family ? `${family.name} estimate` : encoding.name,
        rules,
        exactPossible,
        context: {
          model: info,
          measureText: createTextMeasurer({
            encoding,
            base64CharactersPerToken: openAiFraming[encoding.name].base64CharactersPerToken,
            factors: family?.factors,
          }),
        },
      };
    }
    dispatches.set(key, result);
    return result;
  };

  const fallback = (serialized: string, where: string, reason: string): TokenCount => {
    warn(`Token counting failed for ${where} (${reason}); counted by bytes/4 instead.`);
    return { tokens: Math.max(1, Math.ceil(utf8ByteLength(serialized) / 4)), exact: false, method: 'bytes/4 (fallback)' };
  };

  const remember = (target: Dispatch, identity: object | undefined, contentKey: string, count: TokenCount) => {
    if (identity) {
      let identities = byIdentity.get(target.key);
      if (!identities) {
        identities = new WeakMap();
        byIdentity.set(target.key, identities);
      }
      identities.set(identity, count);
    }
    if (byContent.size >= cacheSize) {
      const oldest = byContent.keys().next().value;
      if (oldest !== undefined) byContent.delete(oldest);
    }
    byContent.set(contentKey, count);
  };

  /** Counts one segment through the caches, the rules and, if they fail, the fallback. */
  const countSegment = (
    target: CountTarget,
    identity: object | undefined,
    serialize: () => string,
    measure: (rules: CountingRules, context: CountingContext) => Measure,
    where: string,
  ): TokenCount => {
    const chosen = dispatch(target);
    const known = identity ? byIdentity.get(chosen.key)?.get(identity) : undefined;
    if (known) return known;
    const serialized = serialize();
    if (!chosen.rules || !chosen.context) {
      return { tokens: Math.max(1, Math.ceil(utf8ByteLength(serialized) / 4)), exact: false, method: 'bytes/4' };
    }
    const contentKey = `${chosen.key}|${hashText(serialized).toString(36)}|${serialized.length}`;
    const cached = byContent.get(contentKey);
    if (cached) {
      if (identity) remember(chosen, identity, contentKey, cached);
      return cached;
    }
    let measured: Measure;
    try {
      measured = measure(chosen.rules, chosen.context);
    } catch (error) {
      return fallback(serialized, where, error instanceof Error ? error.message : String(error));
    }
    if (!Number.isFinite(measured.tokens) || measured.tokens < 0 || (measured.tokens === 0 && serialized.length > 2)) {
      return fallback(serialized, where, `the counter answered ${measured.tokens}`);
    }
    const count: TokenCount = { tokens: measured.tokens, exact: measured.exact && chosen.exactPossible, method: chosen.method };
    remember(chosen, identity, contentKey, count);
    return count;
  };

  const counter = {
    modelInfo: (target: CountTarget) => dispatch(target).context?.model ?? resolveModel(target.provider, target.model, options.models),

    countPreamble(input: CountTarget & Preamble): TokenCount {
      const preamble: Preamble = { system: input.system, tools: input.tools, toolChoice: input.toolChoice };
      return countSegment(
        input,
        undefined,
        () => JSON.stringify(preamble),
        (rules, context) => rules.preamble(preamble, context),
        'the preamble',
      );
    },

    countMessage(input: CountTarget & { readonly message: ModelMessage }): TokenCount {
      return countSegment(
        input,
        input.message,
        () => JSON.stringify(input.message),
        (rules, context) => rules.message(input.message, context),
        `a ${input.message.role} message`,
      );
    },

    count(input: CountTarget & { readonly request: CountableRequest }): TokenCount {
      const { request, provider, model } = input;
      const preamble = counter.countPreamble({ provider, model, system: request.system, tools: request.tools, toolChoice: request.toolChoice });
      // Sums over the messages are kept per model, so that a request that grew since the last
      // count costs pointer comparisons over the old messages and counting only the new ones.
      const key = `${provider}/${model}`;
      const running = runningSums.get(key) ?? { messages: [], totals: [{ tokens: 0, exact: true, methods: '' }] };
      let same = 0;
      while (same < running.messages.length && same < request.messages.length && running.messages[same] === request.messages[same]) same++;
      running.messages.length = same;
      running.totals.length = same + 1;
      for (let index = same; index < request.messages.length; index++) {
        const message = request.messages[index] as ModelMessage;
        const count = counter.countMessage({ provider, model, message });
        const previous = running.totals[index] as RunningTotal;
        running.messages.push(message);
        running.totals.push({
          tokens: previous.tokens + count.tokens,
          exact: previous.exact && count.exact,
          methods: previous.methods.split('+').includes(count.method) ? previous.methods : [previous.methods, count.method].filter(Boolean).sort().join('+'),
        });
      }
      runningSums.set(key, running);
      const total = running.totals[request.messages.length] as RunningTotal;
      const methods = new Set([preamble.method, ...total.methods.split('+').filter(Boolean)]);
      return { tokens: preamble.tokens + total.tokens, exact: preamble.exact && total.exact, method: [...methods].sort().join('+') };
    },
  };
  return counter;
}
