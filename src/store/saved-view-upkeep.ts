/**
 * The upkeep of the views saved beside a PGlite directory: every write drops them first and is
 * counted, so that a view derived while a write ran is never saved, and the agents written are
 * remembered, so that the store can save their views again before it closes.
 */
import { dropSavedViews, saveView } from './saved-views.js';

/**
 * Histories up to this many visible messages have their views saved by the store that wrote
 * them: reading an outline costs about 0.15–0.4 s per 10,000 messages on PGlite, which a small
 * command should not pay for a long history. A longer one is saved by the next `history`,
 * which reads it anyway.
 */
export const SAVE_VIEWS_AFTER_WRITE_UP_TO = 20_000;

export class SavedViewUpkeep {
  /** The PGlite directory the views are saved beside; undefined for a store that keeps none. */
  readonly #dataDir: string | undefined;
  /** Writes started, and writes not yet finished: a view derived meanwhile is not saved. */
  #writesStarted = 0;
  #writesRunning = 0;
  /** Agents written since their views were last saved, oldest first. */
  readonly #written = new Set<string>();
  /**
   * Whether views may lie beside the directory: some may from before it was opened, then only
   * those saved here (a view is saved only by the process holding the directory's lock). A write
   * drops them only then, not with a look at the disk each time.
   */
  #viewsMayExist = true;

  constructor(dataDir: string | undefined) {
    this.#dataDir = dataDir;
  }

  get savesViews(): boolean {
    return this.#dataDir !== undefined;
  }

  /** Runs a write to `agentId`. The saved views are dropped before it, so that none outlives its data. */
  async write<Result>(agentId: string, work: () => Promise<Result>): Promise<Result> {
    if (this.#dataDir !== undefined && this.#viewsMayExist) {
      dropSavedViews(this.#dataDir);
      this.#viewsMayExist = false;
    }
    this.#writesStarted++;
    this.#writesRunning++;
    try {
      const result = await work();
      if (this.#dataDir !== undefined) this.#written.add(agentId);
      return result;
    } finally {
      this.#writesRunning--;
    }
  }

  /** Derives a value and saves `toJson(value)` as the agent's view `name`, unless a write ran meanwhile. */
  async derive<Value>(agentId: string, name: string, derive: () => Promise<Value>, toJson: (value: Value) => unknown): Promise<Value> {
    const writesBefore = this.#writesStarted;
    const quiet = this.#writesRunning === 0;
    const value = await derive();
    if (this.#dataDir !== undefined && quiet && this.#writesStarted === writesBefore) {
      const json = toJson(value);
      // Before the save: one that fails halfway may leave a file.
      this.#viewsMayExist = true;
      try {
        saveView(this.#dataDir, name, agentId, json);
      } catch {
        // A view that could not be saved (a full disk, say) is only missing: readers use the store.
      }
    }
    return value;
  }

  /** The agents written since the last call, oldest first; they are forgotten here. */
  takeWritten(): string[] {
    const written = [...this.#written];
    this.#written.clear();
    return written;
  }

  /**
   * Saves, with `save`, the views of the agents written since the last call whose visible history
   * (`visibleLength`) is within {@link SAVE_VIEWS_AFTER_WRITE_UP_TO} messages.
   */
  async saveWritten(save: (agentId: string) => Promise<unknown>, visibleLength: (agentId: string) => Promise<number>): Promise<void> {
    for (const agentId of this.takeWritten()) {
      try {
        if ((await visibleLength(agentId)) <= SAVE_VIEWS_AFTER_WRITE_UP_TO) await save(agentId);
      } catch {
        // A view not saved is only missing: `history` reads the store instead.
      }
    }
  }
}
