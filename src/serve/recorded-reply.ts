import type { ModelMessage } from '../message/message.js';
import type { ServerSentEvent } from './server-sent-events.js';

/** The answer an upstream gave, as it is stored: the assistant message and the usage it reported. */
export interface RecordedReply {
  /** Undefined when the answer held nothing to store (or could not be read). */
  readonly message: ModelMessage | undefined;
  readonly usage: unknown;
}

/** Collects a streamed answer event by event. */
export interface StreamRecorder {
  take(event: ServerSentEvent): void;
  /** True once the stream's own end arrived (`[DONE]`, `message_stop`, `response.completed`). */
  readonly complete: boolean;
  /** The answer so far; when `interrupted`, only its finished parts, marked interrupted. */
  reply(interrupted: boolean): RecordedReply;
}

/** How one API's answers are read: a whole body, or a stream. */
export interface ReplyReader {
  fromBody(body: unknown): RecordedReply;
  recordStream(): StreamRecorder;
}

/** The message marked as an answer the stream stopped in the middle of, as the chat and the AI SDK integration mark it. */
export function markedInterrupted(message: ModelMessage): ModelMessage {
  return { ...message, providerOptions: { ...message.providerOptions, 'sliding-context': { ...message.providerOptions?.['sliding-context'], interrupted: true } } };
}

/** The message, unless it holds nothing (no text, no parts). */
export function unlessEmpty(message: ModelMessage | undefined): ModelMessage | undefined {
  if (!message) return undefined;
  if (typeof message.content === 'string') return message.content === '' ? undefined : message;
  return message.content.length === 0 ? undefined : message;
}
