/**
 * `sliding-context/langchain`: agent middleware for LangChain's `createAgent` (langchain 1.x) that
 * windows every model call with a stored conversation, and the message conversions it uses.
 * It loads `langchain` and `@langchain/core`, which the application installs.
 */
export { slidingContextMiddleware, type SlidingContextMiddlewareOptions } from './sliding-context-middleware.js';
export type { IntegrationOptions } from './langchain-conversations.js';
export { convertFromLangChain } from './convert-from-langchain.js';
export { convertToLangChain } from './convert-to-langchain.js';
export { LANGCHAIN_EVENT_PREFIX } from './langchain-events.js';
export type { RecallOptions } from '../../conversation/recall-tools.js';
