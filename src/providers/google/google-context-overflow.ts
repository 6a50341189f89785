import type { ContextOverflowWording } from '../_context-overflow-wording.js';

/** Gemini's "request too long" answers. */
export const googleContextOverflow: ContextOverflowWording = {
  // "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576)."
  patterns: [{ pattern: /input token count \((\d+)\) exceeds the maximum number of tokens allowed \((\d+)\)/i, tokens: 1, limit: 2 }],
  codes: [],
};
