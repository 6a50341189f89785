import type { ModelMessage, ToolDefinition } from '../message/message.js';

/** A request in the neutral model, as every builder takes it. */
export interface NeutralRequest {
  readonly model: string;
  readonly system?: string | undefined;
  readonly tools?: readonly ToolDefinition[] | undefined;
  readonly messages: readonly ModelMessage[];
}
