import { summaryMessage } from '../condense/stored-summary.js';
import { activeSummary, type StoredSummary } from './active-summary.js';
import { startsExchange } from '../exchange/detect-exchanges.js';
import type { ModelMessage } from '../message/message.js';
import type { ConversationStore, MessagePosition, StoredMessage } from './conversation-store.js';
import { storedCountCounter } from '../tokens/stored-count-counter.js';
import { countTargetKey, type TokenCount, type TokenCounter } from '../tokens/token-counter.js';
import type { WindowState } from '../window/window-state.js';
import { exchangeAfter, indexOfPosition } from './kept-cut.js';
import { pinnedMessages, placePins } from './pinned-messages.js';

/** What a conversation needs to load its window. */
export interface LoadWindowInput {
  readonly store: ConversationStore;
  readonly agentId: string;
  readonly budgetTokens: number;
  /** Read the whole visible history (no budget, or a policy that chooses over every exchange). */
  readonly readsWholeHistory: boolean;
  readonly pinFirstExchange: boolean;
  readonly target: { readonly provider: string; readonly model: string };
  /** Counts what the store holds no count of for the target. */
  readonly counter: TokenCounter;
  /** Where a `cache-aware` window's cut was kept (see `keptCutPosition`); read back to it. */
  readonly keptCut?: MessagePosition | undefined;
  /** A fresh window state that counts with the given counter. */
  readonly newState: (counter: TokenCounter) => WindowState;
  /** A summary to load the window with instead of the one in force: one about to be recorded. */
  readonly summary?: StoredSummary | undefined;
}

/** A loaded window and where its messages are stored. */
export interface LoadedWindow {
  readonly state: WindowState;
  readonly summary: StoredSummary | undefined;
  /** Where each message of the state is stored; undefined for the summary. */
  readonly positions: (MessagePosition | undefined)[];
  readonly marks: (string | undefined)[];
  readonly lastSeq: number;
  /** True when only the newest part of the history was read. */
  readonly partial: boolean;
  /** The pinned messages: their index in the state, and where they are stored. */
  readonly pins: readonly { readonly index: number; readonly at: MessagePosition }[];
}

/**
 * Loads the window from the store: the newest exchanges whose stored counts reach the budget,
 * and more if none of them turns out to be evicted, so that the cutoff is the one the whole
 * history gives; with a kept cut, from that cut. The summary in force goes after the leading
 * system messages. An agent with pins is read whole (after its summary), so that each pin is
 * placed: in its exchange, or hoisted after the summary when the summary covers it.
 */
export async function loadWindow(input: LoadWindowInput): Promise<LoadedWindow> {
  const key = countTargetKey(input.target);
  let summary = input.summary ?? (await activeSummary(input.store, input.agentId));
  let pinnedRead: StoredMessage[] | undefined;
  for (let minTokens = input.readsWholeHistory ? Number.POSITIVE_INFINITY : input.budgetTokens + 1; ; minTokens *= 2) {
    const read = await input.store.windowTail(input.agentId, { minTokens, withFirstExchange: input.pinFirstExchange, after: summary?.last });
    if (summary && !read.tail.some((entry) => startsExchange(entry.message))) {
      // A summary never stands for the latest exchange (a rewind can leave it covering that):
      // then it is set aside until an exchange follows it.
      summary = undefined;
      minTokens /= 2;
      continue;
    }
    // Pins are placed over the whole history the window may hold: an agent with any is read whole.
    if ((read.pinEvents ?? 0) > 0) pinnedRead ??= await pinnedMessages(input.store, input.agentId);
    const pinned = pinnedRead ?? [];
    if (pinned.length > 0 && !read.complete) {
      minTokens = Number.POSITIVE_INFINITY;
      continue;
    }
    // The summary goes after the leading system messages, before any pinned first exchange.
    const leading = read.head.findIndex((entry) => entry.message.role !== 'system');
    const split = leading === -1 ? read.head.length : leading;
    const loaded: (StoredMessage | undefined)[] = [...read.head.slice(0, split), ...(summary ? [undefined] : []), ...read.head.slice(split), ...read.tail];
    const known = new Map<ModelMessage, TokenCount>();
    for (const entry of loaded) if (entry?.count?.target === key) known.set(entry.message as ModelMessage, entry.count);
    const placed = placePins(
      loaded.map((entry) => (entry?.message as ModelMessage | undefined) ?? summaryMessage(summary?.data.text ?? '')),
      loaded.map((entry) => entry && { agentId: entry.agentId, seq: entry.seq }),
      pinned,
      summary ? split : -1,
    );
    const state = input.newState(storedCountCounter({ messages: known, fallback: input.counter }));
    state.append(placed.messages);
    for (const pin of placed.pins) state.pin(pin.index);
    const { positions } = placed;
    const cutAt = input.keptCut ? indexOfPosition(positions, input.keptCut) : -1;
    // A kept cut lies further back than what was read: read more (a summary may have covered it).
    if (input.keptCut && cutAt === -1 && !read.complete) continue;
    if (cutAt !== -1) state.restoreCut(exchangeAfter(state, cutAt));
    if (read.complete || cutAt !== -1 || state.prune().evicted.length > 0) {
      if (cutAt !== -1) state.prune();
      return {
        state,
        summary,
        positions,
        marks: [...read.marks],
        lastSeq: read.lastSeq,
        partial: !read.complete,
        pins: placed.pins,
      };
    }
  }
}
