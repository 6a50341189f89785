import type { StoredSummary } from './active-summary.js';
import type { AgentSettings } from './agent-settings.js';
import { pinChange, pinTexts } from './conversation-pins.js';
import type { ContextRangeInput, ConversationStore, MessagePosition } from './conversation-store.js';
import { storedAsText } from './evicted-range.js';
import { keptCutPosition } from './kept-cut.js';
import { type LoadedWindow, loadWindow } from './load-window.js';
import { takeRun } from './take-run.js';
import type { Message } from '../message/message.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { requirePinRoom } from '../window/pinned-message.js';
import type { WindowPolicy } from '../window/window-policy.js';
import { WindowState } from '../window/window-state.js';

/** What a {@link ConversationWindow} reads its window with. */
export interface ConversationWindowOptions {
  readonly store: ConversationStore;
  readonly agentId: string;
  readonly counter: TokenCounter;
  readonly target: { readonly provider: string; readonly model: string };
  readonly policy: WindowPolicy;
  /** The agent's settings, read at each load (its budget can change). */
  readonly settings: Readonly<AgentSettings>;
  /** The budget a new window state works with, in tokens: the settings' less the margin usage asks for. */
  readonly workingBudget: () => number;
}

/**
 * The window a conversation holds, loaded from the store (see {@link loadWindow}) and kept in step
 * with what is appended: the state, where each of its messages is stored, the marks a rewind can
 * reach, the summary in force, and the agent's last seq, which every append expects.
 */
export class ConversationWindow {
  readonly #options: ConversationWindowOptions;
  #state!: WindowState;
  /** Where each message the window holds is stored, by its index in the window state. */
  #positions: (MessagePosition | undefined)[] = [];
  /** Labels of the marks a rewind can reach. */
  #marks: (string | undefined)[] = [];
  /** The agent's last seq when the window was loaded or last appended to: appends expect it, so a concurrent writer makes them fail with `STALE_WINDOW`. */
  #lastSeq = 0;
  #partial = false;
  /** Where the pinned messages the window holds are stored, by index (a pin hoisted after the summary has no position of its own). */
  #pinnedAt = new Map<number, MessagePosition>();
  /** The summary in force, if any: the window holds it pinned after the system messages. */
  #summary: StoredSummary | undefined;

  constructor(options: ConversationWindowOptions) {
    this.#options = options;
  }

  /** The window state; a load replaces it. */
  get state(): WindowState {
    return this.#state;
  }

  /** Where each message of the state is stored; undefined for the summary. */
  get positions(): readonly (MessagePosition | undefined)[] {
    return this.#positions;
  }

  /** Labels of the marks a rewind can reach, oldest first (undefined for a mark without one). */
  get marks(): readonly (string | undefined)[] {
    return this.#marks;
  }

  /** True when only the newest part of the history was read. */
  get partial(): boolean {
    return this.#partial;
  }

  get summary(): StoredSummary | undefined {
    return this.#summary;
  }

  /** Without a budget, or with a policy that chooses over every exchange, the window needs the whole visible history. */
  get readsWholeHistory(): boolean {
    return this.#options.settings.budgetTokens === 0 || this.#options.policy.name === 'fraction' || this.#options.policy.name === 'sequence';
  }

  /** Loads the window from the store again (see {@link loadWindow}). */
  async load(): Promise<void> {
    const loaded = await this.#loadWindow();
    this.#state = loaded.state;
    this.#summary = loaded.summary;
    this.#positions = loaded.positions;
    this.#marks = loaded.marks;
    this.#lastSeq = loaded.lastSeq;
    this.#partial = loaded.partial;
    this.#pinnedAt = new Map(loaded.pins.map((pin) => [pin.index, pin.at]));
  }

  /** The window state as it would be loaded with `summary` recorded; this window stays as it is. */
  async preview(summary: StoredSummary): Promise<WindowState> {
    return (await this.#loadWindow(summary)).state;
  }

  /** The window as stored; with `summary`, as it would be with that summary recorded. */
  async #loadWindow(summary?: StoredSummary): Promise<LoadedWindow> {
    const { store, agentId, settings } = this.#options;
    return loadWindow({
      summary,
      store,
      agentId,
      budgetTokens: settings.budgetTokens,
      readsWholeHistory: this.readsWholeHistory,
      pinFirstExchange: settings.pinFirstExchange,
      keptCut: await keptCutPosition(store, agentId, this.#options.policy),
      target: this.#options.target,
      counter: this.#options.counter,
      newState: (counter) => this.#newState(counter),
    });
  }

  #newState(counter: TokenCounter): WindowState {
    const { agentId, settings, policy, target } = this.#options;
    const { system, tools, pinFirstExchange } = settings;
    const storedAs = (index: number) => storedAsText(this.#positions[index], agentId);
    return new WindowState({ ...target, counter, system, tools, budgetTokens: this.#options.workingBudget(), pinFirstExchange, policy, storedAs });
  }

  /** The agent's last seq as this window knows it: the next append expects it. */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /**
   * Takes a run (see `runsEndingAtRewinds`) into the window, then stores it in one transaction,
   * with `ranges` recorded in the same transaction. On any failure the window is loaded again
   * from the store, which holds the truth.
   */
  async appendRun(run: readonly Message[], ranges?: readonly ContextRangeInput[]): Promise<void> {
    const { store, agentId, counter, target, settings } = this.#options;
    try {
      const pinning = run.some((message) => message.role === 'event' && message.kind === 'pin');
      const floorBefore = pinning ? this.#state.plan().floorTokens : 0;
      // The window checks the messages as it takes them; the store writes them only if it did.
      const { counts, marks, rewound } = takeRun(this.#state, this.#marks, run, (message) => counter.countMessage({ ...target, message }));
      if (pinning) requirePinRoom('the messages of this append', { before: floorBefore, after: this.#state.plan().floorTokens, budgetTokens: settings.budgetTokens });
      const { firstSeq, lastSeq } = await store.append(agentId, run, { counts, countTarget: target, expectedLastSeq: this.#lastSeq, ranges });
      this.#lastSeq = lastSeq;
      this.#marks = marks;
      if (rewound) {
        await this.load();
        return;
      }
      for (const [index, message] of run.entries()) {
        if (message.role === 'event' && message.kind === 'clear') {
          this.#positions = [];
          this.#pinnedAt = new Map<number, MessagePosition>();
        } else if (message.role !== 'event') this.#positions.push({ agentId, seq: firstSeq + index });
      }
    } catch (error) {
      // Either failed: the store holds the truth, so the window is loaded from it again.
      await this.load();
      throw error;
    }
  }

  /** Records a range of the history (a summary, an uncompact) and loads the window again. */
  async recordRange(range: ContextRangeInput): Promise<void> {
    await this.#options.store.recordRanges(this.#options.agentId, [range]);
    await this.load();
  }

  /** The pinned messages the window holds: where each is stored, and its text (see `pinTexts`). */
  pinTexts(): { agentId: string; seq: number; text: string }[] {
    return pinTexts(this.#state, (index) => this.#pinnedAt.get(index) ?? this.#positions[index]);
  }

  /**
   * Stores the event that pins or unpins a message (a seq of this agent, or a position), checked
   * first (see `pinChange`); false when it was pinned already. The window is loaded again after.
   */
  async changePin(kind: 'pin' | 'unpin', message: number | MessagePosition): Promise<boolean> {
    const { store, agentId, counter, target, settings } = this.#options;
    try {
      const position = typeof message === 'number' ? { agentId, seq: message } : message;
      const window = { state: this.#state, positions: this.#positions, budgetTokens: settings.budgetTokens };
      const event = await pinChange(kind, position, { store, agentId, ...window, counter, target });
      if (event) await store.append(agentId, [event], { counts: [null], countTarget: target, expectedLastSeq: this.#lastSeq });
      return event !== undefined;
    } finally {
      // The store holds the truth (the pin was tried on the window): it is loaded again.
      await this.load();
    }
  }
}
