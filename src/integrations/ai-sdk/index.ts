/**
 * `sliding-context/ai-sdk`: middleware for the AI SDK (ai 7 and ai 6) that windows every call of
 * a model over the stored history: `wrapLanguageModel({ model, middleware: slidingContext() })`.
 */
export { slidingContext, type SlidingContextMiddleware, type SlidingContextOptions } from './sliding-context-middleware.js';
export { messagesFromPrompt, messagesToPrompt, type PromptMessage, type SpecificationVersion } from './language-model-prompt.js';
export { findConversationByPrefix, placeByPrefix, type ConversationPlacement, type PrefixMatch } from '../../conversation/find-conversation-by-prefix.js';
export type { RecallTool, RecallToolSet } from '../recall-tool-set.js';
export type { RecallOptions } from '../../conversation/recall-tools.js';
