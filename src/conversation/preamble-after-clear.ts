import type { Message } from '../message/message.js';
import type { ConversationStore } from './conversation-store.js';
import { countTargetKey, type TokenCount } from '../tokens/token-counter.js';

/** What a `clear` appends after itself: the leading system messages, with their stored counts. */
export interface PreambleAfterClear {
  readonly messages: readonly Message[];
  /** Each message's stored count when it was made for `countTarget`, else null. */
  readonly counts: readonly (TokenCount | null)[];
  readonly countTarget: { readonly provider: string; readonly model: string } | undefined;
}

/**
 * The system messages an agent's history starts with (an OpenAI body's system prompt, say), which
 * a `clear` must keep: the agent was made with them, as an Anthropic agent is made with its
 * `system`. A clear drops what came before it, so they are stored again after it.
 */
export async function preambleAfterClear(store: ConversationStore, agentId: string): Promise<PreambleAfterClear> {
  const [{ head }, meta] = await Promise.all([store.windowTail(agentId, { minTokens: 0, withFirstExchange: false }), store.agentMeta(agentId)]);
  const leading = head.filter((entry) => entry.message.role === 'system');
  // The counts are kept for the model the agent is counted for, as they were stored.
  const countTarget = typeof meta.provider === 'string' && typeof meta.model === 'string' ? { provider: meta.provider, model: meta.model } : undefined;
  const key = countTarget && countTargetKey(countTarget);
  return {
    messages: leading.map((entry) => entry.message),
    counts: leading.map(({ count }) => (count && count.target === key ? { tokens: count.tokens, exact: count.exact, method: count.method } : null)),
    countTarget,
  };
}
