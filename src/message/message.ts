import { z } from 'zod';

/**
 * The neutral message model. The shapes are those of the AI SDK's `ModelMessage`, so converting
 * to and from it is trivial, plus `event` messages that are history but never sent to a model.
 */

/** Provider-only fields, keyed by provider name (`anthropic`, `openai`, `sliding-context`, …). */
export const providerOptionsSchema = z.record(z.string(), z.record(z.string(), z.unknown()));
export type ProviderOptions = z.infer<typeof providerOptionsSchema>;

const withOptions = { providerOptions: providerOptionsSchema.optional() };

export const textPartSchema = z.strictObject({
  type: z.literal('text'),
  text: z.string(),
  ...withOptions,
});

/** An image as base64, a data URL or an http(s) URL. */
export const imagePartSchema = z.strictObject({
  type: z.literal('image'),
  image: z.string(),
  mediaType: z.string().optional(),
  ...withOptions,
});

/** A file (PDF, audio, …) as base64, a data URL or an http(s) URL. */
export const filePartSchema = z.strictObject({
  type: z.literal('file'),
  data: z.string(),
  mediaType: z.string(),
  filename: z.string().optional(),
  ...withOptions,
});

export const reasoningPartSchema = z.strictObject({
  type: z.literal('reasoning'),
  text: z.string(),
  ...withOptions,
});

export const toolCallPartSchema = z.strictObject({
  type: z.literal('tool-call'),
  toolCallId: z.string(),
  toolName: z.string(),
  input: z.unknown(),
  providerExecuted: z.boolean().optional(),
  ...withOptions,
});

const toolResultContentSchema = z.array(
  z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('text'), text: z.string() }),
    z.strictObject({ type: z.literal('media'), data: z.string(), mediaType: z.string() }),
  ]),
);

export const toolResultOutputSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text'), value: z.string() }),
  z.strictObject({ type: z.literal('json'), value: z.unknown() }),
  z.strictObject({ type: z.literal('error-text'), value: z.string() }),
  z.strictObject({ type: z.literal('error-json'), value: z.unknown() }),
  z.strictObject({ type: z.literal('content'), value: toolResultContentSchema }),
]);
export type ToolResultOutput = z.infer<typeof toolResultOutputSchema>;

export const toolResultPartSchema = z.strictObject({
  type: z.literal('tool-result'),
  toolCallId: z.string(),
  toolName: z.string(),
  output: toolResultOutputSchema,
  ...withOptions,
});

export type TextPart = z.infer<typeof textPartSchema>;
export type ImagePart = z.infer<typeof imagePartSchema>;
export type FilePart = z.infer<typeof filePartSchema>;
export type ReasoningPart = z.infer<typeof reasoningPartSchema>;
export type ToolCallPart = z.infer<typeof toolCallPartSchema>;
export type ToolResultPart = z.infer<typeof toolResultPartSchema>;

const common = { id: z.string().optional(), ...withOptions };

export const systemMessageSchema = z.strictObject({
  role: z.literal('system'),
  content: z.string(),
  ...common,
});

/**
 * A user message. Besides text, image and file parts it may carry tool-result parts, as
 * Anthropic's wire format does; such a message continues the current exchange.
 */
export const userMessageSchema = z.strictObject({
  role: z.literal('user'),
  content: z.union([
    z.string(),
    z.array(
      z.discriminatedUnion('type', [
        textPartSchema,
        imagePartSchema,
        filePartSchema,
        toolResultPartSchema,
      ]),
    ),
  ]),
  ...common,
});

export const assistantMessageSchema = z.strictObject({
  role: z.literal('assistant'),
  content: z.union([
    z.string(),
    z.array(
      z.discriminatedUnion('type', [
        textPartSchema,
        filePartSchema,
        reasoningPartSchema,
        toolCallPartSchema,
        toolResultPartSchema,
      ]),
    ),
  ]),
  ...common,
});

export const toolMessageSchema = z.strictObject({
  role: z.literal('tool'),
  content: z.array(toolResultPartSchema),
  ...common,
});

/**
 * Kinds of event; events are history, never sent to a model. `pin` and `unpin` name their
 * message by `data.back` (see `pinEventTarget`).
 */
export const eventKinds = ['clear', 'mark', 'rewind', 'fork', 'command', 'agent-killed', 'pin', 'unpin'] as const;
export type EventKind = (typeof eventKinds)[number];

export const eventMessageSchema = z.strictObject({
  role: z.literal('event'),
  kind: z.enum(eventKinds),
  label: z.string().optional(),
  data: z.unknown().optional(),
  ...common,
});

export const messageSchema = z.discriminatedUnion('role', [
  systemMessageSchema,
  userMessageSchema,
  assistantMessageSchema,
  toolMessageSchema,
  eventMessageSchema,
]);

export type SystemMessage = z.infer<typeof systemMessageSchema>;
export type UserMessage = z.infer<typeof userMessageSchema>;
export type AssistantMessage = z.infer<typeof assistantMessageSchema>;
export type ToolMessage = z.infer<typeof toolMessageSchema>;
export type EventMessage = z.infer<typeof eventMessageSchema>;

/** Any message of the history, events included. */
export type Message = z.infer<typeof messageSchema>;

/** A message that is sent to a model: every role but `event`. */
export type ModelMessage = Exclude<Message, EventMessage>;

/** A tool the model may call, as the caller defines it. */
export const toolDefinitionSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string().optional(),
  inputSchema: z.record(z.string(), z.unknown()),
  providerOptions: providerOptionsSchema.optional(),
});
export type ToolDefinition = z.infer<typeof toolDefinitionSchema>;

/** True for messages that are sent to a model. */
export function isModelMessage(message: Message): message is ModelMessage {
  return message.role !== 'event';
}
