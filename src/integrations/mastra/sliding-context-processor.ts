import { TokenCounterCache } from '../../tokens/token-counter-cache.js';
import type {
  ProcessAPIErrorArgs, ProcessAPIErrorResult, ProcessInputStepArgs, ProcessLLMRequestArgs, ProcessLLMRequestResult, ProcessLLMResponseArgs,
  ProcessOutputStreamArgs, Processor,
} from '@mastra/core/processors';
import type { ConversationEvent } from '../../conversation/conversation.js';
import { SlidingContextError } from '../../errors/sliding-context-error.js';
import type { ToolDefinition } from '../../message/message.js';
import type { IntegrationOptions } from '../integration-options.js';
import { defaultDataDir } from '../../store/default-data-dir.js';
import type { HistoryStore } from '../../store/history-store.js';
import { ConversationRegistry, type PlacedCall } from '../../conversation/conversation-registry.js';
import { messagesToPrompt } from '../ai-sdk/language-model-prompt.js';
import { PromptConversions } from '../ai-sdk/prompt-conversions.js';
import { type EventLogger, reportMastraEvents } from './mastra-events.js';
import { type StepAnswer, stepAnswerFromChunks } from './mastra-step-answer.js';
import { mastraToolDefinitions } from './mastra-tool-definitions.js';
import type { RecallOptions } from '../../conversation/recall-tools.js';
import { RecallCalls, type RecallToolSet } from '../recall-tool-set.js';

/** Options of {@link SlidingContextProcessor}: where the history is kept and how the window is planned, as every integration takes them. */
export type SlidingContextProcessorOptions = IntegrationOptions;

/** What one step of a run holds between its hooks: the step's tools, the conversation it was placed in, and the tokens it sent. */
interface StepState {
  tools: ToolDefinition[] | undefined;
  placed?: PlacedCall;
  sentTokens?: number | undefined;
  /** The chunks the step streamed so far, seen as an output processor: what an aborted step answered. */
  streamed?: { type: string; payload: unknown }[];
  /** Set once the step's answer is stored (at its end, or when the run is aborted). */
  answered?: boolean;
  /** Stops watching the run's abort signal for this step. */
  unwatch?: () => void;
}

/** Mastra's request-context key of the memory thread (`MASTRA_THREAD_ID_KEY`). */
const THREAD_ID_KEY = 'mastra__threadId';

/** Our provider name for an AI SDK provider id (`openai.chat`, `anthropic.messages`, …). */
const providerName = (provider: string) => provider.split('.')[0] ?? provider;

/**
 * The thread a call runs in: the request context's, else the one `generate`/`stream` was given
 * (`memory.thread`), which the message list holds. Its `memoryInfo` field (null without a thread)
 * is read where Mastra 1.x has it: `serialize()` copies every message, on every call.
 */
function threadOf(args: Pick<ProcessLLMRequestArgs, 'requestContext' | 'messageList'>): string | undefined {
  const fromContext = args.requestContext?.get(THREAD_ID_KEY);
  if (typeof fromContext === 'string' && fromContext !== '') return fromContext;
  const list = args.messageList;
  if (!list) return undefined;
  const fields = list as unknown as { readonly memoryInfo?: { readonly threadId?: unknown } | null };
  const memoryInfo = Object.hasOwn(fields, 'memoryInfo') ? fields.memoryInfo : list.serialize().memoryInfo;
  const threadId = memoryInfo?.threadId;
  return typeof threadId === 'string' && threadId !== '' ? threadId : undefined;
}

/**
 * A Mastra 1.x input processor that keeps every model call of an `Agent` within its budget, in
 * place of `TokenLimiterProcessor`: `inputProcessors: [new SlidingContextProcessor({ … })]`.
 * At each step the prompt is placed in a stored conversation (the call's memory thread, else
 * `conversationId`, else the one whose history it extends; one that diverges from its middle
 * forks it), its new messages are stored, and the model gets the window: whole exchanges, counted
 * exactly. The answer is stored and its usage calibrates the count. Listed in `errorProcessors`
 * too, it answers a context-overflow error with a smaller window. Events go to the logger of the
 * Mastra instance the agent is registered with and, when it streams, to `data-sliding-context` chunks.
 */
export class SlidingContextProcessor implements Processor<'sliding-context'> {
  readonly id = 'sliding-context';
  readonly name = 'Sliding Context';
  readonly #options: SlidingContextProcessorOptions;
  readonly #steps = new WeakMap<object, StepState>();
  readonly #counters = new TokenCounterCache();
  /**
   * Mastra stamps every part with `providerOptions.mastra.createdAt` each time `generate` takes the
   * history in again: compared, the whole history would be converted again on every turn.
   */
  readonly #conversions = new PromptConversions({ ignoredOptions: ['mastra'] });
  readonly #events: ConversationEvent[] = [];
  #logger: EventLogger | undefined;
  #opened: Promise<{ store: HistoryStore; registry: ConversationRegistry }> | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  readonly #recall = new RecallCalls();

  constructor(options: SlidingContextProcessorOptions = {}) {
    if (options.dataDir !== undefined && options.store !== undefined) {
      throw new SlidingContextError('INVALID_OPTION', 'SlidingContextProcessor: give either `dataDir` or `store`, not both.');
    }
    this.#options = options;
  }

  /** Called by Mastra when the agent is registered with it: the events go to its logger. */
  __registerMastra(mastra: { getLogger(): EventLogger }): void {
    this.#logger = mastra.getLogger();
  }

  /** Notes the step's tools: the prompt stage does not see them, and they count. */
  processInputStep(args: ProcessInputStepArgs): undefined {
    this.#steps.set(args.state, { tools: mastraToolDefinitions(args.tools, args.activeTools) });
    return undefined;
  }

  /** Stores the prompt's new messages and sends the window instead of the whole prompt. */
  async processLLMRequest(args: ProcessLLMRequestArgs): Promise<ProcessLLMRequestResult> {
    const step = this.#steps.get(args.state) ?? { tools: undefined };
    this.#steps.set(args.state, step);
    const model = typeof args.model === 'object' && 'modelId' in args.model ? args.model : undefined;
    if (!model) throw new SlidingContextError('INVALID_OPTION', 'SlidingContextProcessor: the step\'s model is not resolved to a language model with a provider and model id.');
    const provider = providerName(model.provider);
    const counter = await this.#counters.counterFor({ provider, model: model.modelId });
    const { registry } = await this.#open();
    const name = threadOf(args) ?? this.#options.conversationId;
    try {
      return await this.#serially(async () => {
        const prompt = this.#conversions.convert(args.prompt);
        const placed = await registry.place(prompt.messages, { provider, model: model.modelId, counter, tools: step.tools, name });
        this.#conversions.remember(placed.conversation.agentId, prompt);
        const { report } = await placed.conversation.request();
        step.placed = placed;
        step.sentTokens = report.calibrated.tokens;
        step.streamed = [];
        this.#storeWhenAborted(step, args);
        const version = model.specificationVersion === 'v4' ? 'v4' : 'v3';
        return { prompt: messagesToPrompt(report.messages, version) as ProcessLLMRequestArgs['prompt'] };
      });
    } finally {
      await reportMastraEvents(this.#events, this.#loggerOf(args), args.writer);
    }
  }

  /** Stores the answer and learns from the usage it reported. */
  async processLLMResponse(args: ProcessLLMResponseArgs): Promise<undefined> {
    const step = this.#steps.get(args.state);
    step?.unwatch?.();
    if (!step?.placed || step.answered || args.fromCache) return undefined;
    step.answered = true;
    try {
      await this.#storeAnswer(step.placed, stepAnswerFromChunks(args.chunks));
    } finally {
      await reportMastraEvents(this.#events, this.#loggerOf(args), args.writer);
    }
    return undefined;
  }

  /**
   * Listed among the output processors too, the processor sees each chunk a step streams, and
   * passes it on unchanged: when the run is aborted (Mastra then skips `processLLMResponse`),
   * what the step streamed so far is stored as its answer, marked interrupted.
   */
  processOutputStream(args: ProcessOutputStreamArgs): Promise<ProcessOutputStreamArgs['part']> {
    const step = this.#steps.get(args.state);
    const { part } = args;
    if (step?.streamed && !step.answered) step.streamed.push({ type: part.type, payload: 'payload' in part ? part.payload : undefined });
    return Promise.resolve(part);
  }

  /** When the run's abort signal fires before the step's answer is stored: stores what it streamed. */
  #storeWhenAborted(step: StepState, args: ProcessLLMRequestArgs): void {
    const { abortSignal: signal } = args;
    const { placed } = step;
    step.unwatch?.();
    if (!signal || !placed) return;
    const onAbort = () => {
      if (step.answered) return;
      step.answered = true;
      const logger = this.#loggerOf(args);
      this.#storeAnswer(placed, stepAnswerFromChunks(step.streamed ?? []))
        .catch((error: unknown) => logger?.warn(`sliding-context: the aborted step's answer was not stored: ${error instanceof Error ? error.message : String(error)}`))
        .finally(() => {
          void reportMastraEvents(this.#events, logger, undefined);
        });
    };
    signal.addEventListener('abort', onAbort, { once: true });
    step.unwatch = () => {
      signal.removeEventListener('abort', onAbort);
    };
  }

  /** Stores a step's answer (when it has one) and ends the turn with its usage. */
  #storeAnswer(placed: PlacedCall, answer: StepAnswer): Promise<void> {
    return this.#serially(async () => {
      if (answer.message) {
        await placed.conversation.append([answer.message]);
        placed.stored(answer.message);
        this.#recall.noteAnswer(answer.message, placed.conversation.agentId);
      }
      await placed.conversation.endTurn({ usage: answer.usage });
    });
  }

  /** A context-overflow answer: the window is cut to what the provider's figures show fits, and the step retried. */
  async processAPIError(args: ProcessAPIErrorArgs): Promise<ProcessAPIErrorResult | undefined> {
    const step = this.#steps.get(args.state);
    if (step?.placed === undefined || step.sentTokens === undefined) return undefined;
    const { placed, sentTokens } = step;
    const logger = this.#loggerOf(args);
    try {
      const shrunk = await this.#serially(() => placed.conversation.shrinkAfterOverflow(args.error, sentTokens, args.retryCount + 1));
      return shrunk ? { retry: true } : undefined;
    } catch (error) {
      // Nothing more to cut: Mastra reports the provider's error; the log says why no retry came.
      logger?.warn(`sliding-context: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    } finally {
      step.sentTokens = undefined;
      await reportMastraEvents(this.#events, logger, args.writer);
    }
  }

  /**
   * `search_history` and `read_history` as tools for the agent's `tools` (AI SDK tool objects, which
   * Mastra takes): the model searches the conversation its step was placed in, what left the
   * window too, and reads a cleared tool output back. A processor cannot add a tool that runs, hence these.
   */
  recallTools(options: RecallOptions = {}): RecallToolSet {
    return this.#recall.tools(async () => (await this.#open()).store, options);
  }

  /** Closes the store the processor opened from `dataDir` (a `store` given stays open), once the work queued is done. */
  async close(): Promise<void> {
    await this.#queue;
    const opened = this.#opened;
    this.#opened = undefined;
    if (!opened || this.#options.store) return;
    await (await opened).store.close();
  }

  #open() {
    this.#opened ??= (async () => {
      // The embedded database loads only when the processor opens a directory itself.
      const store = this.#options.store
        ?? await (await import('../../store/history-store.js')).HistoryStore.open({ dataDir: this.#options.dataDir ?? defaultDataDir(process.env) });
      const { budgetTokens, policy, condense } = this.#options;
      const registry = new ConversationRegistry(store, {
        budgetTokens, modelBudget: budgetTokens === undefined ? true : undefined, policy, condense, format: 'ai-sdk', client: 'mastra', historyReshaped: true, onEvent: (event) => this.#events.push(event),
      });
      return { store, registry };
    })();
    return this.#opened;
  }

  /** The logger of the Mastra instance the agent is registered with, else of the agent when Mastra passes it. */
  #loggerOf(args: { readonly agent?: { __getLogger(): EventLogger } | undefined }): EventLogger | undefined {
    return this.#logger ?? args.agent?.__getLogger();
  }

  /** Store work runs one step at a time, so that two runs never place the same prompt twice. */
  #serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}
