import type { ModelMessage as AiSdkModelMessage, JSONValue } from 'ai';
import type { NeutralRequest } from '../_neutral-request.js';

/** The AI SDK call arguments sliding-context can produce: plain JSON, tools as JSON Schema. */
export interface AiSdkRequest {
  readonly model: string;
  readonly system?: string;
  readonly messages: AiSdkModelMessage[];
  readonly tools?: Record<string, { description?: string; inputSchema: Record<string, JSONValue> }>;
  readonly [option: string]: unknown;
}

/**
 * Builds AI SDK `generateText`/`streamText` input: the neutral model already is `ModelMessage`,
 * so messages pass through; tools become a record keyed by name.
 */
export function buildAiSdkRequest(request: NeutralRequest & { readonly options?: Readonly<Record<string, unknown>> | undefined }): AiSdkRequest {
  const tools = request.tools && request.tools.length > 0
    ? Object.fromEntries(
        request.tools.map((tool) => [
          tool.name,
          { ...(tool.description === undefined ? {} : { description: tool.description }), inputSchema: tool.inputSchema as Record<string, JSONValue> },
        ]),
      )
    : undefined;
  return {
    ...request.options,
    model: request.model,
    ...(request.system === undefined ? {} : { system: request.system }),
    // Our messages are AI SDK ModelMessages by construction (the same shapes, validated by zod).
    messages: request.messages as AiSdkModelMessage[],
    ...(tools ? { tools } : {}),
  };
}
