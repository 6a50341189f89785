import type { CutContext } from './window-cut-report.js';
import type { WindowPolicy } from './window-policy.js';

/**
 * What a {@link WindowState} remembers of its cut between prunes: where the last prune left it,
 * how many messages were held then, and the fewest a rewind or clear has left since. The next
 * prune reports it as the previous cut, as `planWindow` does from `previousCutoff`.
 */
export class PreviousCut {
  #cut: { readonly exchange: number; readonly cutoff: number } | undefined;
  #length: number | undefined;
  #keptSince = Number.POSITIVE_INFINITY;
  #dropped = false;

  /** The previous cut as a prune starting now sees it. */
  context(policy: WindowPolicy): CutContext {
    return {
      policy,
      previousExchange: this.#cut?.exchange,
      previousCutoff: this.#cut?.cutoff,
      dropped: this.#dropped,
      sharedMessages: this.#length === undefined ? undefined : Math.min(this.#length, this.#keptSince),
    };
  }

  /** Notes the cut a prune left: the exchange kept first and its first message (none: undefined). */
  note(exchange: number, cutoff: number | undefined, messages: number | undefined): void {
    this.#cut = cutoff === undefined ? undefined : { exchange, cutoff };
    this.#length = messages;
    this.#keptSince = Number.POSITIVE_INFINITY;
    this.#dropped = false;
  }

  /**
   * Notes a rewind or clear down to `length` messages; true when it removed the last message the
   * cut evicted, which drops the cut (a message index names the same message no longer).
   */
  truncated(length: number): boolean {
    this.#keptSince = Math.min(this.#keptSince, length);
    if (this.#cut === undefined || this.#cut.cutoff <= length) return false;
    this.#cut = undefined;
    this.#dropped = true;
    return true;
  }
}
