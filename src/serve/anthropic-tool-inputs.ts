import { SlidingContextError } from '../errors/sliding-context-error.js';
import { isRecord } from '../message/is-record.js';

/**
 * Refuses a Messages body whose `tool_use` block has an `input` that is not an object, as the
 * Messages API does: converted, it would go upstream as `{ _raw_arguments: … }`, a valid body the
 * client never sent. (A reply may carry such an input, cut short mid-stream; a request may not.)
 * @throws SlidingContextError `INVALID_REQUEST_BODY` naming the message and block
 */
export function requireObjectToolInputs(body: Readonly<Record<string, unknown>>): void {
  const { messages } = body;
  if (!Array.isArray(messages)) return;
  messages.forEach((message: unknown, messageIndex) => {
    if (!isRecord(message) || !Array.isArray(message.content)) return;
    message.content.forEach((block: unknown, blockIndex) => {
      if (isRecord(block) && block.type === 'tool_use' && !isRecord(block.input)) {
        throw new SlidingContextError('INVALID_REQUEST_BODY', `messages[${String(messageIndex)}].content[${String(blockIndex)}].input: expected an object, as the Messages API requires.`);
      }
    });
  });
}
