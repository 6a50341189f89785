import { startsExchange } from '../exchange/detect-exchanges.js';
import { toolResultsOf } from '../exchange/tool-parts.js';
import type { ModelMessage, ToolResultPart } from '../message/message.js';
import type { WindowPlan } from './window-plan.js';
import { DEFAULT_KEPT_TOOL_OUTPUTS, DEFAULT_MINIMUM_CLEARED_TOKENS, type ClearToolOutputsPolicy } from './window-policy.js';

/** A tool output replaced by a placeholder in the request (the history keeps it). */
export interface ClearedToolOutput {
  readonly toolCallId: string;
  readonly toolName: string;
  /** Index of the message that held it, among the messages given. */
  readonly messageIndex: number;
  /** Tokens of the output as a message of its own. */
  readonly tokens: number;
  /** Where the output is kept, as the placeholder names it. */
  readonly storedAs: string;
}

/** What to clear and how to count it. */
export interface ClearToolOutputsInput {
  readonly messages: readonly ModelMessage[];
  /** Only outputs at or after this message index are cleared (the exchange over budget). */
  readonly from: number;
  /** Tokens the request must lose. */
  readonly tokensToFree: number;
  readonly policy: ClearToolOutputsPolicy;
  readonly countMessage: (message: ModelMessage) => number;
  /** Where a message is stored, e.g. `message 1234`. */
  readonly storedAs: (message: ModelMessage) => string;
}

/**
 * The placeholder that stands for a cleared output. It names `read_history`, the tool a
 * conversation with recall offers (`OpenConversationOptions.recall`), which reads the output back.
 */
export function clearedOutputText(tokens: number, storedAs: string): string {
  return `[output cleared: ${tokens} tokens, stored as ${storedAs}; read_history reads it back]`;
}

/**
 * Replaces the oldest tool outputs from `from` on with a placeholder naming their size and where
 * they are stored, keeping every call and result id, until `tokensToFree` (and at least the
 * policy's minimum) is freed. The newest `keep` outputs and the outputs of `excludeTools` stay.
 */
export function clearToolOutputs(input: ClearToolOutputsInput): { messages: ModelMessage[]; cleared: ClearedToolOutput[]; tokensFreed: number } {
  const keep = input.policy.keep ?? DEFAULT_KEPT_TOOL_OUTPUTS;
  const excluded = new Set(input.policy.excludeTools ?? []);
  const target = Math.max(input.tokensToFree, input.policy.minimumTokens ?? DEFAULT_MINIMUM_CLEARED_TOKENS);
  const outputs = input.messages.flatMap((message, messageIndex) =>
    messageIndex < input.from ? [] : toolResultsOf(message).map(({ part, partIndex }) => ({ part, partIndex, messageIndex })),
  );
  const clearable = outputs.slice(0, Math.max(0, outputs.length - keep)).filter(({ part }) => !excluded.has(part.toolName));
  const messages = [...input.messages];
  const cleared: ClearedToolOutput[] = [];
  let tokensFreed = 0;
  for (const { part, partIndex, messageIndex } of clearable) {
    if (tokensFreed >= target) break;
    const message = messages[messageIndex] as ModelMessage;
    const storedAs = input.storedAs(input.messages[messageIndex] as ModelMessage);
    const tokens = input.countMessage({ role: 'tool', content: [part] });
    const placeholder: ToolResultPart = { ...part, output: { type: 'text', value: clearedOutputText(tokens, storedAs) } };
    const content = [...(message.content as readonly unknown[])];
    content[partIndex] = placeholder;
    const replaced = { ...message, content } as ModelMessage;
    const freed = input.countMessage(message) - input.countMessage(replaced);
    if (freed <= 0) continue;
    messages[messageIndex] = replaced;
    tokensFreed += freed;
    cleared.push({ toolCallId: part.toolCallId, toolName: part.toolName, messageIndex, tokens, storedAs });
  }
  return { messages, cleared, tokensFreed };
}

/**
 * The plan with old tool outputs of its latest exchange cleared when that exchange is over
 * budget on its own (BEHAVIOURS.md 16); any other plan is returned as it is.
 */
export function clearOverBudgetToolOutputs(
  plan: WindowPlan,
  options: Pick<ClearToolOutputsInput, 'policy' | 'countMessage' | 'storedAs'>,
): WindowPlan {
  if (!plan.overBudget) return plan;
  const from = plan.messages.findLastIndex((message) => startsExchange(message));
  if (from < 0) return plan;
  const { messages, cleared, tokensFreed } = clearToolOutputs({ ...options, messages: plan.messages, from, tokensToFree: plan.overByTokens });
  if (cleared.length === 0) return plan;
  const totalTokens = plan.totalTokens - tokensFreed;
  const overBudget = totalTokens > plan.budgetTokens;
  const latest = plan.exchanges.length - 1;
  return {
    ...plan,
    totalTokens,
    overBudget,
    overByTokens: overBudget ? totalTokens - plan.budgetTokens : 0,
    exchanges: plan.exchanges.map((exchange) => (exchange.index === latest ? { ...exchange, tokens: exchange.tokens - tokensFreed } : exchange)),
    messages,
    clearedToolOutputs: cleared,
    clearedTokens: plan.clearedTokens + tokensFreed,
  };
}
