/**
 * What a window keeper's output is judged on, the same for every peer and for what a proxy sends
 * upstream: tool calls and results that lost their partner, a window that does not start with the
 * user, and a request over the budget as the model counts it (the whole request: system prompt,
 * tools, every message).
 */
import type { ModelMessage, ToolDefinition } from '../message/message.js';
import type { TokenCounter } from '../tokens/token-counter.js';

/** What a window's messages alone say: no count, no budget. */
export interface WindowShapeVerdict {
  /** Calls without their result plus results without their call. */
  readonly orphans: number;
  /** The first message after the system messages is not the user's. */
  readonly startsWithNonUser: boolean;
}

export interface WindowVerdict extends WindowShapeVerdict {
  /** Tokens of the whole request, counted exactly for the target model. */
  readonly requestTokens: number;
  readonly overBudget: boolean;
}

export interface JudgeTarget {
  readonly counter: TokenCounter;
  readonly provider: string;
  readonly model: string;
  readonly system: string;
  readonly tools: readonly ToolDefinition[];
  readonly budgetTokens: number;
}

/** Orphaned calls and results, and whether the window starts with something else than the user. */
export function judgeWindowShape(messages: readonly ModelMessage[]): WindowShapeVerdict {
  const calls = new Set<string>();
  const results = new Set<string>();
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call') calls.add(part.toolCallId);
      if (part.type === 'tool-result') results.add(part.toolCallId);
    }
  }
  let orphans = 0;
  for (const id of calls) if (!results.has(id)) orphans++;
  for (const id of results) if (!calls.has(id)) orphans++;
  const first = messages.find((message) => message.role !== 'system');
  return { orphans, startsWithNonUser: first !== undefined && first.role !== 'user' };
}

/** The shape verdict plus the whole request's exact count against the budget. */
export function judgeWindow(messages: readonly ModelMessage[], target: JudgeTarget): WindowVerdict {
  const { counter, provider, model, system, tools, budgetTokens } = target;
  const requestTokens = counter.count({ provider, model, request: { system, tools, messages } }).tokens;
  return { ...judgeWindowShape(messages), requestTokens, overBudget: requestTokens > budgetTokens };
}
