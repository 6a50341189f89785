import type { ModelMessage } from '../message/message.js';

/** The assistant message a converted reply holds, or an empty one. */
export function assistantOf(messages: readonly ModelMessage[]): ModelMessage {
  const message = messages.find((entry) => entry.role === 'assistant');
  return message ?? { role: 'assistant', content: '' };
}

/** True when `text` parses as JSON. */
export function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
