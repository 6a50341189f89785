/** What a tool result paired with: its call, or the problem that kept it from pairing. */
export type PairedResult<Call> =
  | { readonly call: Call; readonly problem?: undefined }
  | { readonly call?: undefined; readonly problem: 'ORPHANED_TOOL_RESULT' | 'DUPLICATE_TOOL_RESULT' };

/**
 * The pairing of tool calls and results within one exchange, fed in part order. A result pairs
 * with the nearest open call of its id; an id used again once its call was answered is a new
 * call. Every reader of pairing (the check, the repair, the window) uses this one rule.
 */
export class ToolPairing<Call> {
  /** Open calls in call order, by the sequence number of the call. */
  readonly #calls = new Map<number, { readonly id: string; readonly call: Call }>();
  /** The sequence numbers of the open calls of each id, the nearest last. */
  readonly #open = new Map<string, number[]>();
  /** Ids whose nearest call has its result. */
  readonly #answered = new Set<string>();
  #sequence = 0;

  /** Opens a call; returns `DUPLICATE_TOOL_CALL_ID` when a call of that id is still open. */
  call(id: string, call: Call): 'DUPLICATE_TOOL_CALL_ID' | undefined {
    const sequence = this.#sequence++;
    this.#calls.set(sequence, { id, call });
    const open = this.#open.get(id);
    this.#answered.delete(id);
    if (open && open.length > 0) {
      open.push(sequence);
      return 'DUPLICATE_TOOL_CALL_ID';
    }
    this.#open.set(id, [sequence]);
    return undefined;
  }

  /** Pairs a result with the nearest open call of its id. */
  result(id: string): PairedResult<Call> {
    const open = this.#open.get(id);
    const sequence = open?.pop();
    const entry = sequence === undefined ? undefined : this.#calls.get(sequence);
    if (sequence === undefined || !entry) return { problem: this.#answered.has(id) ? 'DUPLICATE_TOOL_RESULT' : 'ORPHANED_TOOL_RESULT' };
    this.#calls.delete(sequence);
    if (open?.length === 0) {
      this.#open.delete(id);
      this.#answered.add(id);
    }
    return { call: entry.call };
  }

  /** True when a call of `id` is open. */
  isOpen(id: string): boolean {
    return (this.#open.get(id)?.length ?? 0) > 0;
  }

  /** The calls still open, in call order, with their ids. */
  unanswered(): [string, Call][] {
    return [...this.#calls.values()].map(({ id, call }) => [id, call]);
  }

  /**
   * An independent copy of the state of these ids (all ids without them), to try a message on
   * before taking it: a message only touches the ids it names, so the copy finds its problems.
   */
  copy(ids?: ReadonlySet<string>): ToolPairing<Call> {
    const copy = new ToolPairing<Call>();
    const kept = (id: string) => ids === undefined || ids.has(id);
    for (const [id, open] of this.#open) {
      if (!kept(id)) continue;
      copy.#open.set(id, [...open]);
      for (const sequence of open) {
        const entry = this.#calls.get(sequence);
        if (entry) copy.#calls.set(sequence, entry);
      }
    }
    for (const id of ids ?? this.#answered) if (this.#answered.has(id)) copy.#answered.add(id);
    copy.#sequence = this.#sequence;
    return copy;
  }
}
