/** One answer of a model, and what it took. */
export interface Completion {
  readonly text: string;
  /** True when the model's output cap cut the answer off. */
  readonly truncated: boolean;
  /**
   * True when the provider's filter stopped the answer short or withheld it (OpenAI
   * `content_filter`, Anthropic `refusal`, Gemini `SAFETY` and the like): what came is partial.
   */
  readonly filtered?: boolean | undefined;
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** Options of one {@link Complete} call. */
export interface CompleteOptions {
  /** The most tokens the answer may take. */
  readonly maxTokens: number;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Asks a model once, a system prompt and one user message in, its text out (no tools, no
 * streaming): what the LLM summarizer calls. Each provider's folder makes one from its official
 * SDK client and a model name; any other function of this shape works too.
 */
export type Complete = (system: string, user: string, options: CompleteOptions) => Promise<Completion>;
