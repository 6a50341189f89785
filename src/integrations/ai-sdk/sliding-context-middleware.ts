import { TokenCounterCache } from '../../tokens/token-counter-cache.js';
import type { CondenseOptions, ConversationListener } from '../../conversation/conversation.js';
import { SlidingContextError } from '../../errors/sliding-context-error.js';
import { isRecord } from '../../message/is-record.js';
import type { ModelMessage, ToolDefinition } from '../../message/message.js';
import { defaultDataDir } from '../../store/default-data-dir.js';
import type { HistoryStore } from '../../store/history-store.js';
import type { ModelBudgetOverrides } from '../../window/model-budget.js';
import type { WindowPolicy } from '../../window/window-policy.js';
import { ConversationRegistry, type PlacedCall } from '../../conversation/conversation-registry.js';
import { assistantFromContent, messagesToPrompt, type PromptMessage, type SpecificationVersion } from './language-model-prompt.js';
import { PromptConversions } from './prompt-conversions.js';
import { usageOfAiSdk } from './usage-of-ai-sdk.js';
import type { RecallOptions } from '../../conversation/recall-tools.js';
import { RecallCalls, type RecallToolSet } from '../recall-tool-set.js';

/** Options of {@link slidingContext}. */
export interface SlidingContextOptions<V extends SpecificationVersion = 'v4'> {
  /** The embedded PGlite directory of the history; default: the CLI's (`~/.local/share/sliding-context`). */
  readonly dataDir?: string | undefined;
  /** A history store already open (PGlite or PostgreSQL), instead of `dataDir`; it stays open after `close()`. */
  readonly store?: HistoryStore | undefined;
  /** The conversation every call belongs to (the agent's name in `agents`); without it, see {@link slidingContext}. */
  readonly conversationId?: string | undefined;
  /** The window's budget; without it, the agent's stored budget, else 100,000. */
  readonly budgetTokens?: number | undefined;
  /** Without `budgetTokens`, the budget derived from the model's context window (see `openConversation`). */
  readonly modelBudget?: ModelBudgetOverrides | true | undefined;
  readonly policy?: WindowPolicy | undefined;
  readonly condense?: CondenseOptions | undefined;
  /** Evictions, summaries and overflow retries, as they happen (they are also OpenTelemetry spans). */
  readonly onEvent?: ConversationListener | undefined;
  /** `v4` for ai 7 (the default), `v3` for ai 6. */
  readonly specificationVersion?: V | undefined;
}

interface CallParams {
  readonly prompt: readonly PromptMessage[];
  readonly tools?: readonly unknown[] | undefined;
  readonly providerOptions?: unknown;
}

interface CalledModel<P, R> {
  readonly provider: string;
  readonly modelId: string;
  doGenerate(params: P): PromiseLike<R>;
}

interface StreamedModel<P, R> {
  readonly provider: string;
  readonly modelId: string;
  doStream(params: P): PromiseLike<R>;
}

/**
 * The middleware {@link slidingContext} returns: a `LanguageModelV4Middleware` (ai 7) or, with
 * `specificationVersion: 'v3'`, a `LanguageModelV3Middleware` (ai 6).
 */
export interface SlidingContextMiddleware<V extends SpecificationVersion = 'v4'> {
  readonly specificationVersion: V;
  wrapGenerate<P extends CallParams, R extends { readonly content: readonly unknown[]; readonly usage: unknown }>(options: {
    readonly params: P;
    readonly model: CalledModel<P, R>;
  }): Promise<R>;
  wrapStream<P extends CallParams, R extends { readonly stream: ReadableStream<unknown> }>(options: {
    readonly params: P;
    readonly model: StreamedModel<P, R>;
  }): Promise<R>;
  /**
   * `search_history` and `read_history` as AI SDK tools, to add to a call's `tools`: the model
   * searches the conversation the call was placed in (what left the window too), and reads a
   * cleared tool output back. A middleware cannot add a tool that runs, hence these.
   */
  recallTools(options?: RecallOptions): RecallToolSet;
  /** Closes the store the middleware opened from `dataDir` (a `store` given stays open). */
  close(): Promise<void>;
}

/** Our provider name for an AI SDK provider id (`openai.chat`, `anthropic.messages`, …). */
function providerName(provider: string): string {
  return provider.split('.')[0] ?? provider;
}

/** The function tools of a call, as tool definitions (provider-defined tools are the provider's). */
function toolDefinitions(tools: readonly unknown[] | undefined): ToolDefinition[] | undefined {
  const functions = (tools ?? []).filter((tool) => isRecord(tool) && tool.type === 'function' && typeof tool.name === 'string');
  if (functions.length === 0) return undefined;
  return functions.map((tool) => {
    const { name, description, inputSchema } = tool as { name: string; description?: unknown; inputSchema?: unknown };
    return { name, ...(typeof description === 'string' ? { description } : {}), inputSchema: isRecord(inputSchema) ? inputSchema : {} };
  });
}

function conversationIdOf(providerOptions: unknown): string | undefined {
  const ours = isRecord(providerOptions) ? providerOptions['sliding-context'] : undefined;
  return isRecord(ours) && typeof ours.conversationId === 'string' ? ours.conversationId : undefined;
}

/**
 * AI SDK middleware that keeps every call of a model within its budget:
 * `wrapLanguageModel({ model, middleware: slidingContext({ … }) })`. Each call's prompt is placed
 * in a stored conversation (the `conversationId` option or `providerOptions['sliding-context'].conversationId`;
 * without either, the one whose history the prompt extends; a prompt that diverges from the middle of
 * one forks it), its new messages are stored, and the model is called with the window instead of
 * the whole prompt. The answer is stored (a stream's when it ends, or what arrived when it is
 * aborted) and its usage calibrates the count. A provider's context-overflow answer is retried
 * with a smaller window.
 */
export function slidingContext<V extends SpecificationVersion = 'v4'>(options: SlidingContextOptions<V> = {}): SlidingContextMiddleware<V> {
  if (options.dataDir !== undefined && options.store !== undefined) {
    throw new SlidingContextError('INVALID_OPTION', 'slidingContext: give either `dataDir` or `store`, not both.');
  }
  const version = (options.specificationVersion ?? 'v4') as V;
  let opened: Promise<{ store: HistoryStore; registry: ConversationRegistry }> | undefined;
  const counters = new TokenCounterCache();
  const conversions = new PromptConversions();
  let queue: Promise<unknown> = Promise.resolve();
  const recall = new RecallCalls();

  const open = () => {
    opened ??= (async () => {
      // The embedded database loads only when the middleware opens a directory itself.
      const store = options.store ?? await (await import('../../store/history-store.js')).HistoryStore.open({ dataDir: options.dataDir ?? defaultDataDir(process.env) });
      return { store, registry: new ConversationRegistry(store, { ...options, format: 'ai-sdk', client: 'ai-sdk' }) };
    })();
    return opened;
  };
  /** Store work runs one call at a time, so that two calls never place the same prompt twice. */
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work);
    queue = run.catch(() => undefined);
    return run;
  };

  const place = async (params: CallParams, model: { provider: string; modelId: string }): Promise<PlacedCall> => {
    const provider = providerName(model.provider);
    const counter = await counters.counterFor({ provider, model: model.modelId });
    const { registry } = await open();
    return serially(async () => {
      // Converted in turn with the placements: only what the conversation placed last did not hold.
      const prompt = conversions.convert(params.prompt);
      const placed = await registry.place(prompt.messages, {
        provider, model: model.modelId, counter, tools: toolDefinitions(params.tools), name: conversationIdOf(params.providerOptions) ?? options.conversationId,
      });
      conversions.remember(placed.conversation.agentId, prompt);
      return placed;
    });
  };
  const windowed = <P extends CallParams>(params: P, request: unknown): P => {
    const { messages } = request as { messages: ModelMessage[] };
    return { ...params, prompt: messagesToPrompt(messages, version) };
  };
  const finish = (placed: PlacedCall, answer: ModelMessage | undefined, usage: unknown) => serially(async () => {
    if (answer) {
      await placed.conversation.append([answer]);
      placed.stored(answer);
      recall.noteAnswer(answer, placed.conversation.agentId);
    }
    await placed.conversation.endTurn({ usage: usageOfAiSdk(usage) });
  });

  return {
    specificationVersion: version,
    async wrapGenerate({ params, model }) {
      const placed = await place(params, model);
      const result = await placed.conversation.send((request) => Promise.resolve(model.doGenerate(windowed(params, request))));
      await finish(placed, assistantFromContent(result.content), result.usage);
      return result;
    },
    async wrapStream({ params, model }) {
      const placed = await place(params, model);
      const result = await placed.conversation.send((request) => Promise.resolve(model.doStream(windowed(params, request))));
      // A streamed tool call may run before the stream ends: the recall tools learn of it as it passes.
      const noteCall = (call: Record<string, unknown>) => {
        recall.noteCall(call, placed.conversation.agentId);
      };
      const stream = recordedStream(result.stream, (parts, usage, interrupted) => finish(placed, assistantFromContent(parts, interrupted), usage), noteCall);
      return { ...result, stream };
    },
    recallTools(recallOptions = {}) {
      return recall.tools(async () => (await open()).store, recallOptions);
    },
    async close() {
      if (!opened || options.store) return;
      const { store } = await opened;
      await store.close();
    },
  };
}

/**
 * The stream as it comes, part for part; when it ends (or is cancelled, or fails) `done` gets the
 * answer's parts as far as they arrived (text and reasoning joined per block, tool calls whole)
 * and the reported usage; `onToolCall` gets each tool call as it passes.
 */
function recordedStream<T>(
  stream: ReadableStream<T>,
  done: (parts: unknown[], usage: unknown, interrupted: boolean) => Promise<unknown>,
  onToolCall: (part: Record<string, unknown>) => void,
): ReadableStream<T> {
  const reader = stream.getReader();
  const parts: Record<string, unknown>[] = [];
  const blocks = new Map<string, Record<string, unknown>>();
  let usage: unknown;
  let finished = false;
  const end = async (interrupted: boolean) => {
    if (finished) return;
    finished = true;
    await done(parts, usage, interrupted);
  };
  const take = (part: unknown) => {
    if (!isRecord(part)) return;
    const kind = typeof part.type === 'string' ? part.type : '';
    const block = /^(text|reasoning)-(start|delta)$/.exec(kind);
    if (block) {
      const key = `${block[1] ?? ''}:${String(part.id)}`;
      let entry = blocks.get(key);
      if (!entry) {
        entry = { type: block[1], text: '', ...(isRecord(part.providerMetadata) ? { providerMetadata: part.providerMetadata } : {}) };
        blocks.set(key, entry);
        parts.push(entry);
      }
      if (block[2] === 'delta' && typeof part.delta === 'string') entry.text = `${String(entry.text)}${part.delta}`;
    } else if (kind === 'tool-call') {
      parts.push(part);
      onToolCall(part);
    } else if (kind === 'finish') usage = part.usage;
  };
  return new ReadableStream<T>({
    async pull(controller) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (error) {
        await end(true);
        controller.error(error);
        return;
      }
      if (next.done) {
        await end(usage === undefined);
        controller.close();
        return;
      }
      take(next.value);
      controller.enqueue(next.value);
    },
    async cancel(reason) {
      await end(true);
      await reader.cancel(reason);
    },
  });
}
