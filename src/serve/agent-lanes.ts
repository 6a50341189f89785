/**
 * Store work in order per agent, agents side by side: work for one agent starts after the work
 * queued for it before; work whose agent is not known yet (a request to place by the store's
 * prefix rule, which may read, fork or create any agent) runs alone, after everything queued
 * before it and before anything queued after it.
 */
export class AgentLanes {
  /** The last work queued per agent since the last work that ran alone. */
  readonly #lanes = new Map<string, Promise<unknown>>();
  /** The last work that runs alone. */
  #alone: Promise<unknown> = Promise.resolve();

  /** Runs `work` in `agentId`'s lane, or alone when `agentId` is `undefined`. */
  run<T>(agentId: string | undefined, work: () => Promise<T>): Promise<T> {
    if (agentId === undefined) {
      const before = Promise.all([this.#alone, ...this.#lanes.values()]);
      const run = before.then(work);
      this.#alone = run.catch(() => undefined);
      // Every lane opened from now on starts after this work.
      this.#lanes.clear();
      return run;
    }
    const run = (this.#lanes.get(agentId) ?? this.#alone).then(work);
    const tail = run.catch(() => undefined);
    this.#lanes.set(agentId, tail);
    void tail.then(() => {
      if (this.#lanes.get(agentId) === tail) this.#lanes.delete(agentId);
    });
    return run;
  }

  /** Waits for all the work queued so far. */
  async settled(): Promise<void> {
    await this.run(undefined, () => Promise.resolve());
  }
}
