/**
 * One framework configuration as the integration benchmark drives it: a real agent loop, a turn
 * at a time, against the loopback session server, with the time its context hook (middleware,
 * processor, `prepareStep`) takes measured apart from the model calls.
 */
import type { ToolDefinition } from '../../src/message/message.js';
import type { TokenCounter } from '../../src/tokens/token-counter.js';

/** What every configuration is given. */
export interface RunnerContext {
  /** The session server's OpenAI base URL (`…/v1`). */
  readonly modelUrl: string;
  /** A loopback model that answers every request with a fixed text, for summarizers. */
  readonly summarizerUrl: string;
  readonly model: string;
  readonly budgetTokens: number;
  readonly system: string;
  readonly tools: readonly ToolDefinition[];
  /** Each scripted tool call's output, by call id: what the tools answer. */
  readonly outputs: ReadonlyMap<string, string>;
  /** Our exact counter (for budgets that leave room for the tool definitions). */
  readonly counter: TokenCounter;
  /** An empty directory for a PGlite store. */
  readonly dataDir: string;
  /** The conversation's name, where the configuration keeps one. */
  readonly conversationId: string;
}

export interface SessionRunner {
  readonly name: string;
  /** Runs one turn: the user's request, the tool loop, the answer; the history grows as the framework keeps it. */
  turn(user: string): Promise<void>;
  /** Milliseconds spent in the context hook since last asked; undefined when there is none. */
  takeHookMs(): number | undefined;
  close(): Promise<void>;
}

/** The tool output a call was scripted with. */
export function scriptedOutput(outputs: ReadonlyMap<string, string>, toolCallId: string | undefined): string {
  return outputs.get(toolCallId ?? '') ?? `no output scripted for ${toolCallId ?? 'a call without an id'}`;
}

/**
 * Adds up the time spent in a hook: `time` around the hook, `exclude` around what the hook calls
 * that is not its own work (the model call it wraps, a summarizer's request).
 */
export class HookClock {
  #ms = 0;

  async time<T>(work: () => T | PromiseLike<T>): Promise<T> {
    const start = performance.now();
    try {
      return await work();
    } finally {
      this.#ms += performance.now() - start;
    }
  }

  /** `time` for a hook that returns at once, keeping its synchronous result. */
  timeSync<T>(work: () => T): T {
    const start = performance.now();
    try {
      return work();
    } finally {
      this.#ms += performance.now() - start;
    }
  }

  async exclude<T>(inner: () => T | PromiseLike<T>): Promise<T> {
    const start = performance.now();
    try {
      return await inner();
    } finally {
      this.#ms -= performance.now() - start;
    }
  }

  take(): number {
    const taken = this.#ms;
    this.#ms = 0;
    return taken;
  }
}
