import type { ModelMessage, ToolDefinition } from '../../message/message.js';
import type { Measure } from '../measure.js';
import type { ModelInfo } from '../model-catalog.js';

/** How the model is told to use tools; Anthropic's hidden tool prompt depends on it. */
export type ToolChoice = 'auto' | 'none' | 'any' | 'tool';

/** What a provider's rules may use to count. */
export interface CountingContext {
  readonly model: ModelInfo;
  readonly measureText: (text: string) => Measure;
}

/** The preamble of a request: everything but the messages. */
export interface Preamble {
  readonly system?: string | undefined;
  readonly tools?: readonly ToolDefinition[] | undefined;
  readonly toolChoice?: ToolChoice | undefined;
}

/** How one provider renders, and so counts, a request, segment by segment. */
export interface CountingRules {
  preamble(preamble: Preamble, context: CountingContext): Measure;
  message(message: ModelMessage, context: CountingContext): Measure;
}
