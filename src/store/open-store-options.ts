/** How a store is opened: what `HistoryStore.open` takes beside the location. */
import type { HistoryStore } from './history-store.js';

/**
 * Saves the views of an agent the store wrote to (its history outline, say), through
 * `HistoryStore.deriveSavedView`: given by the layer that knows how they are derived.
 */
export type ViewSaver = (store: HistoryStore, agentId: string) => Promise<unknown>;

/** Options of {@link HistoryStore.open}. */
export interface OpenStoreOptions {
  /**
   * On a PGlite directory, called as the store closes for each agent it wrote to whose visible
   * history holds up to `SAVE_VIEWS_AFTER_WRITE_UP_TO` (saved-view-upkeep.ts) messages, so that
   * readers find its views saved without starting PGlite.
   */
  readonly saveViews?: ViewSaver | undefined;
}
