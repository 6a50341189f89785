import { z } from 'zod';
import type { ToolDefinition } from '../../message/message.js';
import { isRecord } from '../../message/is-record.js';
import { parseMessages, parseToolDefinitions } from '../../message/parse-messages.js';
import { type ConvertedRequest, otherFields, parseBody } from '../conversion.js';

const bodySchema = z.union([
  z.array(z.unknown()),
  z.looseObject({ system: z.string().optional(), messages: z.array(z.unknown()), tools: z.unknown().optional() }),
]);

/** AI SDK 6 output types outside the neutral model, mapped onto it. */
function normalizeOutput(output: unknown): unknown {
  if (!isRecord(output)) return output;
  if (output.type === 'execution-denied') {
    return { type: 'error-text', value: typeof output.reason === 'string' ? `execution denied: ${output.reason}` : 'execution denied' };
  }
  return output;
}

function normalizeMessages(messages: readonly unknown[]): unknown[] {
  return messages.map((message) => {
    if (!isRecord(message) || !Array.isArray(message.content)) return message;
    return {
      ...message,
      content: message.content.map((part: unknown) => (isRecord(part) && part.type === 'tool-result' ? { ...part, output: normalizeOutput(part.output) } : part)),
    };
  });
}

/**
 * Takes AI SDK input apart: an array of `ModelMessage`, or `{ system?, messages, tools? }` where
 * `tools` is a record of `{ description?, inputSchema }` keyed by name (JSON Schema, as sent).
 * The neutral model is the AI SDK's, so this is validation plus AI SDK 6's `execution-denied`.
 * @throws SlidingContextError `INVALID_MESSAGE` naming the message index and field.
 */
export function convertFromAiSdk(body: unknown): ConvertedRequest {
  const parsed = parseBody(bodySchema, body, 'AI SDK');
  if (Array.isArray(parsed)) return { messages: parseMessages(normalizeMessages(parsed)), options: {} };
  let tools: ToolDefinition[] | undefined;
  if (isRecord(parsed.tools)) {
    tools = parseToolDefinitions(
      Object.entries(parsed.tools).map(([name, tool]) => ({ name, ...(isRecord(tool) ? tool : {}) })),
    );
  } else if (parsed.tools !== undefined) {
    tools = parseToolDefinitions(parsed.tools);
  }
  return {
    ...(parsed.system === undefined ? {} : { system: parsed.system }),
    messages: parseMessages(normalizeMessages(parsed.messages)),
    ...(tools ? { tools } : {}),
    options: otherFields(parsed, ['system', 'messages', 'tools']),
  };
}
