import type { Message } from './message.js';
import { toolArgumentsText } from './tool-call-input.js';
import { toolOutputText } from './tool-output-text.js';

/**
 * A stored message as text to read back: its text, each tool call as `[call NAME ARGUMENTS]`
 * and each tool result as `[result of NAME]` followed by its output. Reasoning is left out (it is
 * not searched either); images and files are named, not shown. Events give their kind and label.
 */
export function messageText(message: Message): string {
  if (message.role === 'event') return `[${message.kind}${message.label === undefined ? '' : ` ${message.label}`}]`;
  if (typeof message.content === 'string') return message.content;
  const pieces: string[] = [];
  for (const part of message.content) {
    switch (part.type) {
      case 'text':
        pieces.push(part.text);
        break;
      case 'tool-call':
        pieces.push(`[call ${part.toolName} ${toolArgumentsText(part)}]`);
        break;
      case 'tool-result':
        pieces.push(`[result of ${part.toolName}]\n${toolOutputText(part.output)}`);
        break;
      case 'image':
        pieces.push('[image]');
        break;
      case 'file':
        pieces.push(`[file${part.filename === undefined ? '' : ` ${part.filename}`}]`);
        break;
      case 'reasoning':
        break;
    }
  }
  return pieces.join('\n');
}
