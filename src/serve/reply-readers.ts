import { anthropicReply } from './anthropic-reply.js';
import { openAiChatReply } from './openai-chat-reply.js';
import { openAiResponsesReply } from './openai-responses-reply.js';
import type { WindowedEndpoint } from './proxy-endpoints.js';
import type { ReplyReader } from './recorded-reply.js';

const READERS: Readonly<Record<WindowedEndpoint['format'], ReplyReader>> = {
  'openai-chat': openAiChatReply,
  'openai-responses': openAiResponsesReply,
  'anthropic': anthropicReply,
};

/** How answers of a body format are read for storing. */
export function replyReaderFor(format: WindowedEndpoint['format']): ReplyReader {
  return READERS[format];
}
