/**
 * What a store knows of an agent after an append it committed: the agent's last seq, the digest of
 * its visible history, and the exchange its next append joins. The next append starts from it
 * instead of reading the agent's row and that exchange again; its write carries the last seq it
 * started from, so a tip that went stale (another writer appended since) fails the write, which
 * is then made the long way. A tip is a hint, never the truth: nothing wrong can be written from one.
 */
import { startsExchange } from '../exchange/detect-exchanges.js';
import { toolPartsOf } from '../exchange/tool-parts.js';
import type { Message, ToolCallPart, ToolResultPart } from '../message/message.js';
import type { PrefixState } from './prefix-digests.js';

/** An agent as its latest append here left it. */
export interface AppendTip {
  readonly lastSeq: number;
  /** The chain of what the model sees, as the agent's row holds it. */
  readonly prefix: PrefixState;
  /**
   * The messages the model sees from the latest exchange start to `lastSeq` (what a tool result
   * appended next pairs with), as {@link pairingSkeleton}s; undefined when not known here.
   */
  readonly openExchange: readonly Message[] | undefined;
}

/** Agents whose tips are kept: past this, the least recently appended to is forgotten. */
const KEPT_AGENTS = 256;

/** Messages of an open exchange kept in a tip: a longer one is read from the store when needed. */
const KEPT_OPEN_EXCHANGE = 2_000;

/**
 * What pairing reads of a model message: its role and its tool calls' and results' ids and names,
 * in order, without text, input or output (a user message without tool results still starts an
 * exchange). A tip keeps an exchange of long tool outputs in a few bytes a message.
 */
export function pairingSkeleton(message: Message): Message {
  const parts = toolPartsOf(message).map(({ part }): ToolCallPart | ToolResultPart =>
    part.type === 'tool-call'
      ? { type: 'tool-call', toolCallId: part.toolCallId, toolName: part.toolName, input: null }
      : { type: 'tool-result', toolCallId: part.toolCallId, toolName: part.toolName, output: { type: 'text', value: '' } });
  switch (message.role) {
    case 'user': {
      const results = parts.filter((part) => part.type === 'tool-result');
      return { role: 'user', content: results.length === 0 ? '' : results };
    }
    case 'assistant':
      return { role: 'assistant', content: parts };
    case 'tool':
      return { role: 'tool', content: parts.filter((part) => part.type === 'tool-result') };
    default:
      return message.role === 'event' ? message : { role: message.role, content: '' };
  }
}

/**
 * The exchange the next append joins, after `appended` (its messages checked and stored) joined
 * `before` (undefined when not known): the batch's own from its last exchange start, else `before`
 * continued. Undefined after an event (a clear, rewind, mark or pin changes what is visible: the
 * store reads it then) or when it grows past what is kept.
 */
export function openExchangeAfter(before: readonly Message[] | undefined, appended: readonly Message[]): readonly Message[] | undefined {
  if (appended.some((message) => message.role === 'event')) return undefined;
  const start = appended.findLastIndex(startsExchange);
  const skeletons = appended.slice(Math.max(start, 0)).map(pairingSkeleton);
  const open = start !== -1 ? skeletons : before === undefined ? undefined : [...before, ...skeletons];
  return open !== undefined && open.length <= KEPT_OPEN_EXCHANGE ? open : undefined;
}

/** The tips of the agents appended to lately, by agent id. */
export class AppendTips {
  readonly #tips = new Map<string, AppendTip>();

  /** The agent's tip, removed: an append starts from it, and leaves a new one only if it commits. */
  take(agentId: string): AppendTip | undefined {
    const tip = this.#tips.get(agentId);
    this.#tips.delete(agentId);
    return tip;
  }

  /** Keeps the tip of an append that committed (unless a later one is kept already). */
  keep(agentId: string, tip: AppendTip): void {
    const kept = this.#tips.get(agentId);
    if (kept !== undefined && kept.lastSeq > tip.lastSeq) return;
    this.#tips.delete(agentId);
    this.#tips.set(agentId, tip);
    if (this.#tips.size > KEPT_AGENTS) {
      const oldest = this.#tips.keys().next();
      if (oldest.done !== true) this.#tips.delete(oldest.value);
    }
  }
}
