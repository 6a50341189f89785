/**
 * The codes of bad input a caller can act on, split from the one `INVALID_INPUT` of earlier
 * versions. `INVALID_INPUT` still names them all: {@link SlidingContextError.isInvalidInput} and
 * `isSlidingContextError(error, 'INVALID_INPUT')` match any of them.
 */
export const INVALID_INPUT_CODES = [
  /** A body is not a valid request of its format: the wrong top-level shape, or not the declared format. */
  'INVALID_REQUEST_BODY',
  /** The format of an input cannot be told, or is not the one that was named: name it. */
  'UNKNOWN_FORMAT',
  /** Text that should be JSON is not. */
  'INVALID_JSON',
  /** A line of a transcript or an export (JSON lines) is not what it should be. */
  'INVALID_TRANSCRIPT',
  /** A window policy (library option, flag or settings file) is not valid. */
  'INVALID_POLICY',
  /** An option, flag or argument has a value it cannot take, or two options conflict. */
  'INVALID_OPTION',
  /** An input file cannot be read. */
  'INPUT_UNREADABLE',
  /** An output file cannot be written. */
  'OUTPUT_UNWRITABLE',
  /** The provider's API key is not set. */
  'MISSING_API_KEY',
  /** An interactive command was run without a terminal. */
  'NOT_A_TERMINAL',
] as const;

/** A code of the `INVALID_INPUT` family. */
export type InvalidInputCode = (typeof INVALID_INPUT_CODES)[number];

/**
 * Every stable error code sliding-context raises. Callers branch on `code`, never on the message.
 */
export type SlidingContextErrorCode =
  | InvalidInputCode
  | 'INVALID_MESSAGE'
  | 'INVALID_CONVERSATION'
  | 'ORPHANED_TOOL_RESULT'
  | 'DUPLICATE_TOOL_CALL_ID'
  | 'DUPLICATE_TOOL_RESULT'
  | 'UNKNOWN_MARK'
  /** A pin names no message the model sees, or a message that cannot be pinned (a tool call or result, an image). */
  | 'INVALID_PIN'
  /** A pin would leave no room in the budget for the latest exchange. */
  | 'PIN_OVER_BUDGET'
  /** `uncompact` with no summary in force. */
  | 'NO_SUMMARY'
  | 'BUDGET_INVALID'
  | 'STORE_LOCKED'
  | 'NO_STORE'
  | 'NOT_A_STORE'
  | 'STALE_WINDOW'
  | 'UNKNOWN_AGENT'
  /** A stored message asked for by number that the agent does not see (`readHistoryMessage`, `read_history`). */
  | 'UNKNOWN_MESSAGE'
  | 'CONTEXT_OVERFLOW'
  | 'STORE_UNAVAILABLE'
  | 'INVALID_DATABASE_URL'
  | 'CONFIG_INVALID'
  | 'INPUT_TOO_DEEP'
  | 'INPUT_NOT_TEXT'
  | 'UNKNOWN_OPTION'
  | 'UNKNOWN_COMMAND'
  | 'INVALID_USAGE'
  /** `import --sync`: the stored history is not a prefix of the body's messages. */
  | 'SYNC_DIVERGED'
  /** `import --sync`: the body's system prompt or tools differ from the agent's. */
  | 'SYNC_SETTINGS_CHANGED'
  /** An operation was cancelled (an interrupt) and rolled back. */
  | 'ABORTED'
  /** A provider call failed; the message is the provider's, with keys and tokens taken out. */
  | 'PROVIDER_ERROR'
  /** A provider answered something that lacks what was asked for. */
  | 'UNEXPECTED_RESPONSE'
  /** A token count was asked of a counter that has neither the stored count nor a fallback. */
  | 'NO_COUNTER'
  /** A tokenizer answered a count that cannot be right (no tokens for text). */
  | 'ENCODER_FAILED'
  /** The store's schema could not be brought up to date. */
  | 'MIGRATION_FAILED'
  /** An operation the engine does not offer, e.g. streaming query results from PGlite. */
  | 'NOT_SUPPORTED'
  /** An operation took longer than it was given, e.g. a summarizer (the condense falls back to eviction). */
  | 'TIMEOUT'
  /** A request body over the proxy's size cap. */
  | 'REQUEST_TOO_LARGE'
  /** A request to the proxy without the token it was started with. */
  | 'UNAUTHORIZED'
  /** A request to a proxy on loopback that names another host, or comes from a web page of another origin. */
  | 'FORBIDDEN';

/** A code, or `INVALID_INPUT` for the whole family of {@link INVALID_INPUT_CODES}. */
export type SlidingContextErrorCodeOrFamily = SlidingContextErrorCode | 'INVALID_INPUT';

/** The mark every copy of the class sets, shared through the global symbol registry. */
const MARKER = Symbol.for('sliding-context.error');

const invalidInputCodes: ReadonlySet<string> = new Set(INVALID_INPUT_CODES);

/**
 * The one error class of sliding-context: a stable `code`, a one-sentence message saying what
 * failed and where, and the original `cause` when there is one.
 */
export class SlidingContextError extends Error {
  override readonly name = 'SlidingContextError';
  readonly code: SlidingContextErrorCode;
  private readonly [MARKER] = true;

  constructor(code: SlidingContextErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }

  /**
   * True when `value` is a SlidingContextError, also one made by another installed copy of this
   * package (where `instanceof` answers false): every copy sets the same global marker.
   */
  static isInstance(value: unknown): value is SlidingContextError {
    return typeof value === 'object' && value !== null && MARKER in value && (value as Record<symbol, unknown>)[MARKER] === true;
  }

  /** True for a SlidingContextError whose code is one of the `INVALID_INPUT` family. */
  static isInvalidInput(value: unknown): value is SlidingContextError & { readonly code: InvalidInputCode } {
    return SlidingContextError.isInstance(value) && invalidInputCodes.has(value.code);
  }
}

/**
 * True when `error` is a {@link SlidingContextError} (from any installed copy), optionally with the
 * given code; `'INVALID_INPUT'` matches every code of its family.
 */
export function isSlidingContextError(
  error: unknown,
  code?: SlidingContextErrorCodeOrFamily,
): error is SlidingContextError {
  if (code === 'INVALID_INPUT') return SlidingContextError.isInvalidInput(error);
  return SlidingContextError.isInstance(error) && (code === undefined || error.code === code);
}
