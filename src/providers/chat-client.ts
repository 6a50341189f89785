import type { ModelMessage } from '../message/message.js';

/** A model's reply to one request: the assistant message (text and tool calls) and the usage reported. */
export interface ChatReply {
  readonly message: ModelMessage;
  /** The provider's usage object, as `Conversation.endTurn` takes it. */
  readonly usage: unknown;
  readonly stopReason: string | undefined;
}

/**
 * Sends a provider-shaped request and streams the reply's text as it comes. Each provider's
 * folder makes one from its official SDK client; `chatClientFor` picks it by provider name.
 */
export interface ChatClient {
  stream(request: unknown, onText: (text: string) => void, signal?: AbortSignal): Promise<ChatReply>;
}
