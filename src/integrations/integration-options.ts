import type { CondenseOptions } from '../conversation/conversation-options.js';
import type { HistoryStore } from '../store/history-store.js';
import type { WindowPolicy } from '../window/window-policy.js';

/** Where the history is kept and how the window is planned: the options every integration takes. */
export interface IntegrationOptions {
  /** An embedded PGlite directory (default: the CLI's, `$SLIDING_CONTEXT_DATA_DIR` or `~/.local/share/sliding-context`). */
  readonly dataDir?: string | undefined;
  /** A store opened by the caller (PostgreSQL or PGlite), used instead of `dataDir` and left open. */
  readonly store?: HistoryStore | undefined;
  /** The conversation (an agent id, or a name `agents` shows) used when a call names none. */
  readonly conversationId?: string | undefined;
  /** Tokens a request may use; default: derived from the model (its context window less output and a buffer). */
  readonly budgetTokens?: number | undefined;
  readonly policy?: WindowPolicy | undefined;
  readonly condense?: CondenseOptions | undefined;
}
