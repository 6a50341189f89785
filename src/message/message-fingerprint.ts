import type { ModelMessage } from './message.js';

/**
 * What identifies a message when a client sends its history again: its role and content, without
 * provider options or ids (a client may drop or add those on the way back), keys in sorted order;
 * a text content is the same as one text part (Claude Code sends its latest user message as a block
 * with `cache_control`, and as a string once it is no longer the latest).
 */
export function messageFingerprint(message: ModelMessage): string {
  const content = message.role !== 'system' && typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
  return JSON.stringify(withoutOptions({ ...message, content }));
}

function withoutOptions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutOptions);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([key, inner]) => key !== 'providerOptions' && key !== 'id' && inner !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([key, inner]) => [key, withoutOptions(inner)]));
}
