import type { ContextOverflowWording } from '../_context-overflow-wording.js';

/** The "request too long" answers of OpenAI (both APIs) and of OpenAI-compatible servers (vLLM, llama.cpp). */
export const openAiContextOverflow: ContextOverflowWording = {
  patterns: [
    // OpenAI and vLLM: "maximum context length is 128000 tokens. However, your messages resulted in 130542 tokens"
    { pattern: /maximum context length is (\d+) tokens?\.? however,? (?:your messages resulted in|you requested) (\d+) tokens/i, tokens: 2, limit: 1 },
    // OpenAI Responses: "Your input exceeds the context window of this model."
    { pattern: /exceeds the context window/i },
    // llama.cpp: "the request exceeds the available context size"
    { pattern: /exceeds the available context size/i },
  ],
  codes: ['context_length_exceeded', 'exceed_context_size_error'],
};
