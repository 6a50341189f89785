import { isRecord } from '../../message/is-record.js';
import type { ModelMessage } from '../../message/message.js';
import { assistantFromContent } from '../ai-sdk/language-model-prompt.js';
import { usageOfAiSdk } from '../ai-sdk/usage-of-ai-sdk.js';

/** What one model call of a Mastra step answered: the assistant message, and the usage it reported. */
export interface StepAnswer {
  readonly message: ModelMessage | undefined;
  readonly usage: Record<string, number> | undefined;
}

/**
 * The answer of a step from the chunks Mastra collected (`processLLMResponse`'s `{ type, payload }`):
 * text and reasoning joined per block, tool calls whole, and the usage of its `finish` chunk (the
 * provider's raw figures when Mastra kept them, which split cache reads from the rest).
 */
export function stepAnswerFromChunks(chunks: readonly { readonly type: string; readonly payload: unknown }[]): StepAnswer {
  const parts: Record<string, unknown>[] = [];
  const blocks = new Map<string, Record<string, unknown>>();
  let usage: unknown;
  let finished = false;
  for (const chunk of chunks) {
    const payload = isRecord(chunk.payload) ? chunk.payload : {};
    const block = /^(text|reasoning)-delta$/.exec(chunk.type);
    if (block && typeof payload.text === 'string') {
      const key = `${block[1] ?? ''}:${String(payload.id)}`;
      let entry = blocks.get(key);
      if (!entry) {
        entry = { type: block[1], text: '', ...(isRecord(payload.providerMetadata) ? { providerMetadata: payload.providerMetadata } : {}) };
        blocks.set(key, entry);
        parts.push(entry);
      }
      entry.text = `${String(entry.text)}${payload.text}`;
    } else if (chunk.type === 'tool-call') {
      parts.push({ type: 'tool-call', toolCallId: payload.toolCallId, toolName: payload.toolName, input: payload.args, providerExecuted: payload.providerExecuted });
    } else if (chunk.type === 'finish') {
      finished = true;
      const output = isRecord(payload.output) ? payload.output : {};
      const reported = isRecord(output.usage) ? output.usage : undefined;
      usage = isRecord(reported?.raw) ? reported.raw : reported;
    }
  }
  return { message: assistantFromContent(parts, !finished), usage: usageOfAiSdk(usage) };
}
