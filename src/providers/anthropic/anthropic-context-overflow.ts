import type { ContextOverflowWording } from '../_context-overflow-wording.js';

/** Anthropic's "request too long" answers. */
export const anthropicContextOverflow: ContextOverflowWording = {
  // "prompt is too long: 208310 tokens > 200000 maximum"
  patterns: [{ pattern: /prompt is too long: (\d+) tokens > (\d+) maximum/i, tokens: 1, limit: 2 }],
  codes: ['request_too_large'],
};
