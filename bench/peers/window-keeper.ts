/**
 * One way of keeping a conversation inside a token budget, as the window benchmarks drive it:
 * the history is handed over once, then each turn's messages arrive and the window to send is
 * produced. Only `turn` is timed.
 */
import type { Tiktoken } from 'tiktoken';
import type { ModelMessage, ToolDefinition } from '../../src/message/message.js';
import type { TokenCounter } from '../../src/tokens/token-counter.js';

/** What every keeper is given: the model, its budget and the request's fixed parts. */
export interface KeeperContext {
  readonly provider: string;
  readonly model: string;
  readonly budgetTokens: number;
  readonly system: string;
  readonly tools: readonly ToolDefinition[];
  /** Our exact counter, for our own keepers and for the judge. */
  readonly counter: TokenCounter;
  /** tiktoken's o200k_base, for peers that count with tiktoken. */
  readonly tiktoken: Tiktoken;
  /** A PGlite directory for keepers that store their history. */
  readonly dataDir: string;
}

export interface WindowKeeper {
  readonly name: string;
  /** Takes over the history, as the keeper would hold it. Not timed. */
  setUp(history: readonly ModelMessage[]): Promise<void>;
  /** Work the keeper's host does outside the keeper (a provider's usage report). Not timed. */
  beforeTurn?(turn: readonly ModelMessage[]): void;
  /** Takes one turn's messages and produces the window to send. Timed. */
  turn(turn: readonly ModelMessage[]): Promise<void>;
  /** The last window, in our message model, for the judge. Not timed. */
  lastWindow(): readonly ModelMessage[];
  close(): Promise<void>;
}

/** The text of a message's text parts, or its string content. */
export function textOf(message: ModelMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** A tool result's output as the text a peer would send. */
export function outputText(output: unknown): string {
  const { type, value } = output as { type: string; value: unknown };
  return type === 'text' || type === 'error-text' ? String(value) : JSON.stringify(value);
}
