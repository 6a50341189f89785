/**
 * Every stable error code sliding-context raises. Callers branch on `code`, never on the message.
 */
export type SlidingContextErrorCode =
  | 'INVALID_MESSAGE'
  | 'INVALID_CONVERSATION'
  | 'INVALID_INPUT'
  | 'ORPHANED_TOOL_RESULT'
  | 'DUPLICATE_TOOL_CALL_ID'
  | 'DUPLICATE_TOOL_RESULT'
  | 'UNKNOWN_MARK'
  | 'BUDGET_INVALID'
  | 'STORE_LOCKED'
  | 'NO_STORE'
  | 'NOT_A_STORE'
  | 'STALE_WINDOW'
  | 'UNKNOWN_AGENT'
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
  | 'ABORTED';

/**
 * The one error class of sliding-context: a stable `code`, a one-sentence message saying what
 * failed and where, and the original `cause` when there is one.
 */
export class SlidingContextError extends Error {
  override readonly name = 'SlidingContextError';
  readonly code: SlidingContextErrorCode;

  constructor(code: SlidingContextErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }
}

/** True when `error` is a {@link SlidingContextError}, optionally with the given code. */
export function isSlidingContextError(
  error: unknown,
  code?: SlidingContextErrorCode,
): error is SlidingContextError {
  return error instanceof SlidingContextError && (code === undefined || error.code === code);
}
