/**
 * `sliding-context/mastra`: an input processor for Mastra 1.x agents that windows every model
 * call over the stored history, in place of `TokenLimiterProcessor`:
 * `new Agent({ …, inputProcessors: [new SlidingContextProcessor()] })`.
 */
export { SlidingContextProcessor, type SlidingContextProcessorOptions } from './sliding-context-processor.js';
export { MASTRA_EVENT_CHUNK } from './mastra-events.js';
export type { RecallTool, RecallToolSet } from '../recall-tool-set.js';
export type { RecallOptions } from '../../conversation/recall-tools.js';
