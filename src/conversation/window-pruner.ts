import type { ContextRangeInput, ConversationStore } from './conversation-store.js';
import type { ConversationWindow } from './conversation-window.js';
import type { ConversationEvent } from './conversation-events.js';
import { evictionRecordLater } from './evicted-range.js';
import type { PruneResult } from '../window/window-state.js';

/** Evicted exchanges a conversation keeps in memory before it loads its window again. */
const FORGET_EVICTED_AFTER = 256;

/**
 * Prunes a conversation's window and records what each prune evicted as a range of the history
 * (a record only: the messages stay). A record can wait for the conversation's next write (see
 * `deferEvictionRecords`): it is made when it is written, and written once, by whichever write
 * takes it first.
 */
export class WindowPruner {
  readonly #window: ConversationWindow;
  readonly #store: ConversationStore;
  readonly #agentId: string;
  readonly #emit: (event: ConversationEvent) => void;
  #waiting: (() => ContextRangeInput)[] = [];

  constructor(options: { window: ConversationWindow; store: ConversationStore; agentId: string; emit: (event: ConversationEvent) => void }) {
    this.#window = options.window;
    this.#store = options.store;
    this.#agentId = options.agentId;
    this.#emit = options.emit;
  }

  /** Prunes the window; its record is written now with those that wait, or, `deferred`, waits with them. */
  async prune(reason = 'budget', deferred = false): Promise<PruneResult> {
    const state = this.#window.state;
    const tokensBefore = state.totalTokens;
    const result = state.prune();
    if (result.evicted.length > 0) {
      this.#emit({ type: 'exchange-evicted', exchanges: result.evicted.length, reason, tokensBefore, tokensAfter: result.totalTokens });
      const record = evictionRecordLater(state, this.#window.positions, result, reason, this.#window.summary?.data.text);
      if (record) this.#waiting.push(record);
      if (!deferred) await this.writeWaiting();
    }
    return result;
  }

  /**
   * Past a few hundred evicted exchanges the window is loaded again from the store: memory and the
   * time to plan a request stay in proportion to the window, not to the turns taken since opening.
   */
  async forgetEvicted(): Promise<void> {
    if (this.#window.readsWholeHistory || this.#window.state.evictedExchanges <= FORGET_EVICTED_AFTER) return;
    await this.#window.load();
  }

  /** Writes the records that wait; nothing when none does. */
  writeWaiting(): Promise<void> {
    return this.writeWith((ranges) => (ranges.length === 0 ? Promise.resolve() : this.#store.recordRanges(this.#agentId, ranges)));
  }

  /** Runs `write` with the records that wait, made: they are taken at once, and put back if it fails. */
  async writeWith(write: (ranges: readonly ContextRangeInput[]) => Promise<void>): Promise<void> {
    const records = this.#waiting.splice(0);
    try {
      await write(records.map((record) => record()));
    } catch (error) {
      this.#waiting = [...records, ...this.#waiting];
      throw error;
    }
  }
}
